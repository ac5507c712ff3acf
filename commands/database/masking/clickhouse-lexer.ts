import { blockCommentEnd, isSpace, keep, SPACES, lineCommentEnd, matchEnd, numberEnd, quotedEnd, startsNumber, Unreadable, type Scanner } from './sql-lexer.js';

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const HEREDOC_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;

/**
 * ClickHouse's lexical rules (Lexer.cpp): '…' is a string, "…" and `…` are names, all three with backslash
 * escapes and doubled quotes; `--` starts a line comment. Versions differ: newer servers nest `/* *\/` comments
 * and read `$tag$…$tag$` heredocs as strings, 18.16 does neither (`nestedAndHeredocs`). `#` comments exist
 * only in newer servers, so a statement holding one is unreadable.
 */
export function clickhouseScanner(nestedAndHeredocs: boolean): Scanner {
  const quoted = { doubled: true, backslash: true };
  return (text, i) => {
    const c = text[i]!;
    const next = text[i + 1];
    if (isSpace(c)) return keep(matchEnd(SPACES, text, i)!);
    if (c === '-' && next === '-') return { kind: 'line-comment', end: lineCommentEnd(text, i) };
    if (c === '#') throw new Unreadable('a # comment, which only newer ClickHouse servers read');
    if (c === '/' && next === '*') return { kind: 'comment', end: blockCommentEnd(text, i, nestedAndHeredocs) };
    if (c === "'") return { kind: 'string', end: quotedEnd(text, i, quoted) };
    if (c === '"' || c === '`') return keep(quotedEnd(text, i, quoted));
    if (c === '$' && nestedAndHeredocs) {
      const tagEnd = matchEnd(HEREDOC_TAG, text, i);
      if (tagEnd !== null) {
        const close = text.indexOf(text.slice(i, tagEnd), tagEnd);
        if (close < 0) throw new Unreadable('an unterminated heredoc');
        return { kind: 'body', end: close + (tagEnd - i) };
      }
    }
    if (startsNumber(text, i)) return { kind: 'number', end: numberEnd(text, i) };
    return keep(matchEnd(IDENTIFIER, text, i) ?? i + 1);
  };
}

export const CLICKHOUSE_SCANNERS = [clickhouseScanner(true), clickhouseScanner(false)];
