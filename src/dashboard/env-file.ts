/** `KEY=VALUE` lines of a `.env` file: comments, blank lines and `export ` skipped, one level of quotes removed. */
export function parseEnvFile(text: string): { key: string; value: string }[] {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else value = value.replace(/\s+#.*$/, '');
    out.set(match[1]!, value);
  }
  return [...out].map(([key, value]) => ({ key, value }));
}

export type Change = { key: string; kind: 'added' | 'changed' | 'same'; before?: string; after: string };

/** What saving `incoming` over `current` would do, key by key (nothing is removed). */
export function diffVariables(current: readonly { key: string; value: string }[], incoming: readonly { key: string; value: string }[]): Change[] {
  const now = new Map(current.map((v) => [v.key, v.value]));
  return incoming.map(({ key, value }) => {
    const before = now.get(key);
    if (before === undefined) return { key, kind: 'added', after: value };
    return { key, kind: before === value ? 'same' : 'changed', before, after: value };
  });
}
