import {
  blockCommentEnd, IDENTIFIER, isSpace, keep, SPACES, lineCommentEnd, matchEnd, numberEnd, quotedEnd, startsNumber, Unreadable, type Scanner, type Token,
} from './sql-lexer.js';

// $tag$ opening a dollar-quoted body: the tag is an identifier without `$`, or empty.
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
const PARAMETER = /\$[0-9]+/y;

/**
 * Postgres's lexical rules (scan.l). `standardStrings` is the server's standard_conforming_strings: when off,
 * a backslash escapes the next character in '…' and N'…' too. E'…' always takes backslash escapes; U&'…',
 * B'…' and X'…' never; comments nest; "…" is an identifier.
 */
export function postgresScanner(standardStrings: boolean): Scanner {
  const plain = { doubled: true, backslash: !standardStrings };
  const string = (end: number): Token => ({ kind: 'string', end });
  return (text, i) => {
    const c = text[i]!;
    const next = text[i + 1];
    if (isSpace(c)) return keep(matchEnd(SPACES, text, i)!);
    if (c === '-' && next === '-') return { kind: 'line-comment', end: lineCommentEnd(text, i) };
    if (c === '/' && next === '*') return { kind: 'comment', end: blockCommentEnd(text, i, true) };
    if ((c === 'E' || c === 'e') && next === "'") return string(quotedEnd(text, i + 1, { doubled: true, backslash: true }));
    if ((c === 'U' || c === 'u') && next === '&' && text[i + 2] === "'") return string(quotedEnd(text, i + 2, { doubled: true, backslash: false }));
    if (/[bBxX]/.test(c) && next === "'") return string(quotedEnd(text, i + 1, { doubled: true, backslash: false }));
    if ((c === 'N' || c === 'n') && next === "'") return string(quotedEnd(text, i + 1, plain));
    if (c === "'") return string(quotedEnd(text, i, plain));
    if (c === '"') return keep(quotedEnd(text, i, { doubled: true, backslash: false }));
    if (c === '$') {
      const parameter = matchEnd(PARAMETER, text, i);
      if (parameter !== null) return keep(parameter);
      const tagEnd = matchEnd(DOLLAR_TAG, text, i);
      if (tagEnd === null) return keep(i + 1);
      const close = text.indexOf(text.slice(i, tagEnd), tagEnd);
      if (close < 0) throw new Unreadable('an unterminated dollar-quoted body');
      return { kind: 'body', end: close + (tagEnd - i) };
    }
    if (startsNumber(text, i)) return { kind: 'number', end: numberEnd(text, i) };
    return keep(matchEnd(IDENTIFIER, text, i) ?? i + 1);
  };
}

export const POSTGRES_SCANNERS = [postgresScanner(true), postgresScanner(false)];
