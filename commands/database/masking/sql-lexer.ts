/**
 * The shared parts of the SQL lexers that mask console statements: each dialect's scanner says what token
 * starts at a position, and `maskWith` keeps identifiers, keywords, operators and whitespace as typed and
 * replaces every literal, comment and number by a fixed mask.
 */

/** The lexer cannot read the statement, or is not sure how the engine reads it: nothing of it may be shown. */
export class Unreadable extends Error {}

export type TokenKind = 'keep' | 'string' | 'comment' | 'line-comment' | 'number' | 'body';
export type Token = { kind: TokenKind; end: number };
/** The token that starts at `at` (never empty); throws Unreadable when unsure. */
export type Scanner = (text: string, at: number) => Token;

// Each mask reads back as a token of the same kind in every dialect, so masking a masked statement changes nothing.
const MASKS: Record<Exclude<TokenKind, 'keep'>, string> = {
  string: "'…'",
  comment: '/* … */',
  'line-comment': '-- …',
  number: '?',
  body: '$$…$$',
};

export type Segment = Token & { start: number };

/** The statement cut into its tokens, as the scanner reads it. */
export function segmentsOf(scan: Scanner, text: string): Segment[] {
  const segments: Segment[] = [];
  for (let i = 0; i < text.length; ) {
    const token = scan(text, i);
    if (token.end <= i) throw new Unreadable('the lexer stood still');
    segments.push({ kind: token.kind, start: i, end: token.end });
    i = token.end;
  }
  return segments;
}

export function maskWith(scan: Scanner, text: string): string {
  return segmentsOf(scan, text)
    .map((segment) => (segment.kind === 'keep' ? text.slice(segment.start, segment.end) : MASKS[segment.kind]))
    .join('');
}

/**
 * A statement whose reading depends on a server setting or version (standard_conforming_strings, MySQL's
 * NO_BACKSLASH_ESCAPES, ClickHouse's nested comments and heredocs) is masked under every reading; only if
 * all agree is the mask shown.
 */
export function maskUnderEvery(scanners: readonly Scanner[], text: string): string {
  const [first, ...others] = scanners.map((scan) => maskWith(scan, text));
  if (others.some((other) => other !== first)) throw new Unreadable('the statement reads differently under another server setting');
  return first!;
}

export const keep = (end: number): Token => ({ kind: 'keep', end });

/** End (exclusive) of a quoted run whose opening quote is at `open`. */
export function quotedEnd(text: string, open: number, options: { doubled: boolean; backslash: boolean }): number {
  const quote = text[open];
  for (let i = open + 1; i < text.length; ) {
    const c = text[i];
    if (options.backslash && c === '\\') i += 2;
    else if (c === quote && options.doubled && text[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  throw new Unreadable('an unterminated quote');
}

/** End of a `/* … *\/` comment opened at `open`; a `/*` inside one is a nesting level only where `nested`. */
export function blockCommentEnd(text: string, open: number, nested: boolean): number {
  let depth = 1;
  for (let i = open + 2; i < text.length; ) {
    if (text.startsWith('*/', i)) {
      i += 2;
      if (--depth === 0) return i;
    } else if (nested && text.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else i++;
  }
  throw new Unreadable('an unterminated comment');
}

/** End of a `--` or `#` comment: the line break stays. */
export function lineCommentEnd(text: string, open: number): number {
  LINE_BREAK.lastIndex = open;
  return LINE_BREAK.exec(text) ? LINE_BREAK.lastIndex - 1 : text.length;
}
const LINE_BREAK = /[\r\n]/g;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
export const startsNumber = (text: string, i: number) => isDigit(text[i]) || (text[i] === '.' && isDigit(text[i + 1]));

/**
 * A numeric constant in any of its forms (1_000, 0x1F, 0b101, 1.5e-3, .5). Letters after the digits are
 * taken in: that may mask part of a name, never show part of a number. A quote right after a number has no
 * single reading across server versions (Postgres before 15 reads `1E'…'` as 1 and an E'…' string).
 */
export function numberEnd(text: string, open: number): number {
  const hex = /^0[xX]/.test(text.slice(open, open + 2));
  let i = open;
  while (i < text.length) {
    const c = text[i]!;
    if (/[0-9A-Za-z_.]/.test(c)) i++;
    else if ((c === '+' || c === '-') && !hex && /[eE]/.test(text[i - 1]!)) i++;
    else break;
  }
  if (/['"`$]/.test(text[i] ?? '')) throw new Unreadable('a quote right after a number');
  return i;
}

/** Identifier or keyword characters of Postgres and MySQL: letters, digits, _, $ and any non-ASCII character. */
export const IDENTIFIER = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;

export function matchEnd(pattern: RegExp, text: string, at: number): number | null {
  pattern.lastIndex = at;
  return pattern.exec(text) ? pattern.lastIndex : null;
}

// Whitespace as the servers' lexers know it: ASCII only. A no-break space is part of a name to Postgres and MySQL.
export const isSpace = (c: string) => c === ' ' || (c >= '\t' && c <= '\r');
export const SPACES = /[ \t\n\v\f\r]+/y;
