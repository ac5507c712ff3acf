/**
 * A Dockerfile with one `LABEL` instruction inserted right after the `FROM` of its final stage, or null
 * when the text does not let that place be found for sure (then the caller labels the image another way).
 *
 * Why there and not at the end: the classic builder commits every instruction as a step of its own (a
 * container created and committed, a few hundred milliseconds). Labels that are the same at every build of
 * a service, placed right after the final FROM, are a step the builder finds in its cache from the second
 * build on; at the end they would be a new step each time.
 *
 * The split into instructions follows the builder's parser: parser directives (`# escape=`) only before
 * anything else, comment lines (also inside a continued instruction), and lines continued by the escape
 * character at their end, trailing blanks allowed.
 */
export function labelFinalStage(dockerfile: string, labels: Record<string, string>): string | null {
  const entries = Object.entries(labels);
  if (entries.length === 0) return dockerfile;
  const lines = dockerfile.replace(/^\uFEFF/, '').split(/(?<=\n)/);
  let escape = '\\';
  let index = 0;
  // Parser directives: `# key=value` lines at the very top, until the first line that is not one.
  for (; index < lines.length; index++) {
    const directive = /^#[ \t]*([a-zA-Z][a-zA-Z0-9]*)[ \t]*=[ \t]*(.+?)[ \t]*$/.exec(lines[index]!.replace(/\r?\n$/, ''));
    if (!directive) break;
    if (directive[1]!.toLowerCase() === 'escape') {
      if (directive[2] !== '\\' && directive[2] !== '`') return null;
      escape = directive[2];
    }
  }
  const continued = (line: string) => line.replace(/\r?\n$/, '').replace(/[ \t]+$/, '').endsWith(escape);
  const isComment = (line: string) => /^[ \t]*#/.test(line);
  const isBlank = (line: string) => /^[ \t]*\r?\n?$/.test(line);
  let afterFinalFrom: number | null = null;
  while (index < lines.length) {
    const first = lines[index]!;
    if (isBlank(first) || isComment(first)) {
      index++;
      continue;
    }
    const keyword = /^[ \t]*([A-Za-z]+)/.exec(first)?.[1]?.toUpperCase();
    let end = index;
    let open = continued(first);
    while (open) {
      end++;
      if (end >= lines.length) return null;
      const next = lines[end]!;
      if (isComment(next) || isBlank(next)) continue;
      open = continued(next);
    }
    if (keyword === 'FROM') afterFinalFrom = end + 1;
    index = end + 1;
  }
  if (afterFinalFrom === null) return null;
  const before = lines.slice(0, afterFinalFrom);
  // The FROM on the last line may lack its line break.
  if (before.length > 0 && !before[before.length - 1]!.endsWith('\n')) before[before.length - 1] += '\n';
  const label = `LABEL ${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}\n`;
  return [...before, label, ...lines.slice(afterFinalFrom)].join('');
}
