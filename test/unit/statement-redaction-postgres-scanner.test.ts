import t, { type Test } from 'tap';
import { loadModule, scanSync, type ScanToken } from 'libpg-query';
import { POSTGRES_SCANNERS } from '../../commands/database/masking/postgres-lexer.js';
import { maskUnderEvery, segmentsOf } from '../../commands/database/masking/sql-lexer.js';
import { POSTGRES } from '../helpers/statement-corpus.js';

// Postgres's own lexer (libpg_query, standard_conforming_strings on) is the judge of what is a literal or a comment.
await loadModule();

// The grammar's token numbers (gram.h of the pinned libpg-query), as the scanner names some of them UNKNOWN:
// FCONST, SCONST, USCONST (U&'…'), BCONST, XCONST, ICONST, SQL_COMMENT, C_COMMENT.
const LITERAL_TOKENS = new Set([260, 261, 262, 263, 264, 266, 275, 276]);

/** Postgres's literal and comment tokens as [start, end) in UTF-16 units, or null if Postgres refuses the text. */
function postgresLiterals(text: string): [number, number][] | null {
  let tokens: ScanToken[];
  try {
    tokens = scanSync(text).tokens;
  } catch {
    return null;
  }
  const bytes = Buffer.from(text, 'utf8');
  const unitsAt = (byte: number) => bytes.subarray(0, byte).toString('utf8').length;
  return tokens.filter((token) => LITERAL_TOKENS.has(token.tokenType)).map((token) => [unitsAt(token.start), unitsAt(token.end)]);
}

/**
 * Every literal and comment Postgres sees lies inside what our lexer masks (or our lexer refuses the text);
 * only the whitespace between the pieces of a continued string ('a'<newline>'b', one token) may be kept.
 */
function check(t: Test, text: string): 'masked' | 'unreadable' | 'refused' {
  const literals = postgresLiterals(text);
  if (literals === null) return 'refused';
  try {
    maskUnderEvery(POSTGRES_SCANNERS, text);
  } catch {
    return 'unreadable';
  }
  const masked = new Uint8Array(text.length);
  for (const segment of segmentsOf(POSTGRES_SCANNERS[0]!, text)) if (segment.kind !== 'keep') masked.fill(1, segment.start, segment.end);
  const shown = literals.filter(([start, end]) => text.slice(start, end).split('').some((c, i) => masked[start + i] === 0 && !/\s/.test(c)));
  if (shown.length > 0) t.fail(`Postgres reads a literal we show: ${JSON.stringify(shown.map(([s, e]) => text.slice(s, e)))} in ${JSON.stringify(text)}`);
  return 'masked';
}

t.test('the corpus: every literal and comment Postgres reads is masked', async (t) => {
  for (const [statement] of POSTGRES) check(t, statement);
  t.pass('checked');
});

t.test('random statements made of hostile pieces: no literal or comment Postgres reads is shown', async (t) => {
  const PIECES = [
    "'", '"', "E'", "e'", "U&'", 'U&"', "B'", "X'", "N'", '$', '$$', '$a$', '$b$', '$1', '--', '/*', '*/', '\n', '\\', "\\'", "''",
    "E'\\''", "'\\'", '/* /* */', '/* x */', '$a$ $b$', "''''",
    'S3cret', ' ', '1', '0x1F', '1.5', 'e', 'E', '.', '+', '-', '(', ')', ';', '::', '&', 'a$b', 'PASSWORD', 'SELECT', '_', 'ö', '\u00a0', '\t', '\f',
  ];
  // A fixed-seed generator: a failure names the statement, and the run can be repeated exactly.
  let seed = 20261127;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor(seed / 65536) % n; // the high bits: the low bits of this generator repeat quickly
  };
  const outcomes = { masked: 0, unreadable: 0, refused: 0 };
  for (let run = 0; run < 50000; run++) {
    let text = 'SELECT ';
    const length = 1 + random(16);
    for (let i = 0; i < length; i++) text += PIECES[random(PIECES.length)];
    outcomes[check(t, text)]++;
  }
  t.ok(outcomes.masked > 1000, `masked ${outcomes.masked}, unreadable ${outcomes.unreadable}, refused by Postgres ${outcomes.refused}`);
});
