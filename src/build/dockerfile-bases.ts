/** `NAME=value` pairs of one ARG instruction (a bare `NAME` has no default). */
function argDefaults(rest: string): [string, string][] {
  return rest
    .trim()
    .split(/\s+/)
    .map((pair) => /^([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|'([^']*)'|(\S*))$/.exec(pair))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2] ?? m[3] ?? m[4] ?? '']);
}

/** `$NAME`, `${NAME}` and `${NAME:-default}` replaced as the builder does with the ARGs known (unset: empty). */
function substitute(text: string, args: ReadonlyMap<string, string>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const value = args.get((braced ?? bare)!);
    return value !== undefined && value !== '' ? value : (fallback ?? '');
  });
}

/**
 * The images a Dockerfile makes the engine pull: those of its FROM lines and of `COPY --from=<image>`. ARGs
 * declared before the first FROM are substituted with their defaults (Slipway passes no build arguments);
 * `scratch` and earlier stages (by name or number) are left out.
 */
export function baseImagesOf(dockerfile: string): string[] {
  const lines = dockerfile.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const args = new Map<string, string>();
  const stages = new Set<string>();
  const images: string[] = [];
  let seenFrom = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('#')) continue;
    const instruction = /^(ARG|FROM|COPY)\s+(.*)$/i.exec(line);
    if (!instruction) continue;
    const keyword = instruction[1]!.toUpperCase();
    if (keyword === 'ARG') {
      if (!seenFrom) for (const [name, value] of argDefaults(instruction[2]!)) args.set(name, value);
      continue;
    }
    if (keyword === 'COPY') {
      const from = /(?:^|\s)--from=(\S+)/i.exec(instruction[2]!)?.[1];
      const image = from === undefined ? '' : substitute(from, args);
      if (image && !/^\d+$/.test(image) && !stages.has(image.toLowerCase())) images.push(image);
      continue;
    }
    seenFrom = true;
    const words = instruction[2]!.split(/\s+/).filter((w) => !w.startsWith('--'));
    const image = substitute(words[0] ?? '', args);
    if (image && image.toLowerCase() !== 'scratch' && !stages.has(image.toLowerCase())) images.push(image);
    if (words[1]?.toLowerCase() === 'as' && words[2]) stages.add(words[2].toLowerCase());
  }
  return images;
}
