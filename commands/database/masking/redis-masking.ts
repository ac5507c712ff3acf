import { splitCommandLineBytes } from '../redis-command-line.js';
import { KEYLESS, KEYS_OF, SUBCOMMANDS } from './redis-keys.js';

const MASK = '?';
const PLAIN = /^[^\s'"]+$/;
const ESCAPES: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x08: '\\b', 0x07: '\\a' };

const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** An argument written so that redis-cli's splitting reads it back as the same bytes. */
function written(arg: Uint8Array): string {
  const text = utf8(arg);
  const isText = sameBytes(new TextEncoder().encode(text), arg);
  if (isText && PLAIN.test(text)) return text;
  let out = '"';
  for (const ch of isText ? [...text] : [...arg].map((b) => String.fromCharCode(b))) {
    const code = ch.codePointAt(0)!;
    if (ESCAPES[code]) out += ESCAPES[code];
    else if (code < 0x20 || code === 0x7f || (!isText && code >= 0x80)) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * A redis-cli line as auditors see it: the command's name (and a known subcommand's), and its key names;
 * every other argument is `?`. A first word that is no Redis command is masked as well: it may be a
 * password typed at the wrong prompt. A line redis-cli cannot split throws.
 */
export function maskRedisLine(line: string): string {
  const args = splitCommandLineBytes(line);
  if (args.length === 0) return '';
  const words = args.map(utf8);
  const name = words[0]!.toUpperCase();
  const shown = new Set<number>();
  const subcommands = SUBCOMMANDS.get(name);
  const keys = KEYS_OF.get(name);
  if (subcommands) {
    shown.add(0);
    const sub = words[1]?.toUpperCase();
    if (sub !== undefined && subcommands.has(sub)) {
      shown.add(1);
      for (const at of subcommands.get(sub)?.(words) ?? []) shown.add(at);
    }
  } else if (keys) {
    shown.add(0);
    for (const at of keys(words)) shown.add(at);
  } else if (KEYLESS.has(name)) {
    shown.add(0);
  }
  return args.map((arg, i) => (shown.has(i) ? written(arg) : MASK)).join(' ');
}
