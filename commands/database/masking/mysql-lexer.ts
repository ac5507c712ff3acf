import {
  blockCommentEnd, IDENTIFIER, isSpace, keep, SPACES, lineCommentEnd, matchEnd, numberEnd, quotedEnd, startsNumber, Unreadable, type Scanner,
} from './sql-lexer.js';

/**
 * MySQL's and MariaDB's lexical rules. `backslashEscapes` is off under the NO_BACKSLASH_ESCAPES SQL mode.
 * '…' and "…" are strings (under ANSI_QUOTES "…" is a name: masked all the same); `…` is a name; `#` and
 * `-- ` (a space or control character after the dashes) start line comments; comments do not nest. The body
 * of `/*! … *\/` and `/*M! … *\/` is run as code, so one that holds a quote is unreadable. Charset
 * introducers (_utf8'…'), N'…', X'…' and B'…' are a name or letter followed by a string.
 */
export function mysqlScanner(backslashEscapes: boolean): Scanner {
  const quoted = { doubled: true, backslash: backslashEscapes };
  return (text, i) => {
    const c = text[i]!;
    const next = text[i + 1];
    if (isSpace(c)) return keep(matchEnd(SPACES, text, i)!);
    if (c === '#') return { kind: 'line-comment', end: lineCommentEnd(text, i) };
    if (c === '-' && next === '-' && (i + 2 === text.length || text.charCodeAt(i + 2) <= 0x20)) {
      return { kind: 'line-comment', end: lineCommentEnd(text, i) };
    }
    if (c === '/' && next === '*') {
      const end = blockCommentEnd(text, i, false);
      const body = text.slice(i + 2, end - 2);
      if (body.includes('/*')) throw new Unreadable('a comment inside a comment');
      if (/^(?:!|M!)/.test(body) && /['"`]/.test(body)) throw new Unreadable('an executable comment holding a quote');
      return { kind: 'comment', end };
    }
    if (c === "'" || c === '"') return { kind: 'string', end: quotedEnd(text, i, quoted) };
    if (c === '`') return keep(quotedEnd(text, i, { doubled: true, backslash: false }));
    if (startsNumber(text, i)) return { kind: 'number', end: numberEnd(text, i) };
    return keep(matchEnd(IDENTIFIER, text, i) ?? i + 1);
  };
}

export const MYSQL_SCANNERS = [mysqlScanner(true), mysqlScanner(false)];
