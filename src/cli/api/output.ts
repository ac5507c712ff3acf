/** Prints to stdout: the answers of `--json`, and tables for people. */
export const out = (line: string) => process.stdout.write(line + '\n');

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** The progress line last written where it cannot be redrawn (a log, a pipe): the same line is not written again. */
let lastWritten: string | null = null;

/** A line on stderr saying what the command waits for; rewritten in place on a terminal. */
export function progress(text: string) {
  if (process.stderr.isTTY) process.stderr.write(`\r\u001b[2K${text}`);
  else if (text !== lastWritten) process.stderr.write(text + '\n');
  lastWritten = text;
}

export function endProgress() {
  if (process.stderr.isTTY) process.stderr.write('\r\u001b[2K');
  lastWritten = null;
}

/** `2026-11-25T10:04:05.123Z` as `2026-11-25 10:04:05`; empty for null. */
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '');

/** A value as a list shows it: hidden, unless it is only a reference to another service's variable. */
export function masked(value: string): string {
  if (value === '') return '(empty)';
  return /^\$\{[^}]+\}$/.test(value) ? value : '••••••••';
}
