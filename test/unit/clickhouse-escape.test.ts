import t from 'tap';
import { BrowserError } from '../../src/engines/browser.js';
import {
  answersRows,
  baseType,
  keyColumns,
  leadingKeyword,
  literalFor,
  parseType,
  primaryKeyExpression,
  quoteIdentifier,
  quoteString,
} from '../../src/engines/clickhouse-literals.js';

function kindOf(work: () => unknown): string | null {
  try {
    work();
    return null;
  } catch (error) {
    return error instanceof BrowserError ? error.kind : 'not a BrowserError';
  }
}

/**
 * ClickHouse's reading of a quoted literal (the lexer finds the closing quote, then
 * readQuotedStringWithSQLStyle unescapes): a reference to check the escaper against.
 */
function readQuoted(text: string, quote: string): { value: string; rest: string } {
  if (text[0] !== quote) throw new Error('does not start with a quote');
  const bytes: number[] = [];
  let i = 1;
  const escapes: Record<string, number> = { b: 8, f: 12, n: 10, r: 13, t: 9, '0': 0, a: 7, v: 11 };
  for (;;) {
    const c = text[i];
    if (c === undefined) throw new Error('unterminated literal');
    if (c === quote) {
      if (text[i + 1] === quote) {
        bytes.push(quote.charCodeAt(0));
        i += 2;
        continue;
      }
      return { value: Buffer.from(bytes).toString('utf8'), rest: text.slice(i + 1) };
    }
    if (c === '\\') {
      const e = text[i + 1]!;
      if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
        bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
        i += 4;
      } else {
        bytes.push(...Buffer.from(e in escapes ? String.fromCharCode(escapes[e]!) : e, 'utf8'));
        i += 2;
      }
      continue;
    }
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    bytes.push(...Buffer.from(ch, 'utf8'));
    i += ch.length;
  }
}

const HOSTILE = [
  '',
  "'",
  "''",
  '\\',
  "\\'",
  "'); DROP TABLE x; --",
  "x' OR '1'='1",
  'back\\slash\\\\double',
  'nul\0byte',
  'line\nbreak\r\nand\ttab',
  '\x01\x02\x1f\x7f',
  '`backtick`',
  '"double"',
  'unicode: é ü 中文 😀 \u2028\u2029 \uFEFF',
  '\\x41 is not an escape here',
  '\\0 stays two characters',
  "-- comment\n/* block */ ; SELECT 1",
];

t.test('string literals read back as exactly the text written', async (t) => {
  for (const text of HOSTILE) {
    const literal = quoteString(text);
    // Test names stay printable ASCII: a U+2028 in a name would break the TAP stream itself.
    const label = JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const read = readQuoted(literal, "'");
    t.equal(read.value, text, `round trip of ${label}`);
    t.equal(read.rest, '', `the literal ends where it should for ${label}`);
    t.notMatch(literal, /[\x00-\x1f\x7f]/, `no raw control character in the literal for ${label}`);
  }
});

t.test('random strings round-trip', async (t) => {
  const alphabet = ["'", '\\', '"', '`', '\0', '\n', '\r', '\t', '\x1b', '\x7f', 'a', 'Z', ' ', ';', '-', '/', '*', 'é', '😀', 'x', '0'];
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let failures = 0;
  for (let n = 0; n < 2000; n++) {
    let text = '';
    const length = Math.floor(random() * 20);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    const read = readQuoted(quoteString(text), "'");
    if (read.value !== text || read.rest !== '') failures++;
  }
  t.equal(failures, 0, '2000 random strings from a hostile alphabet');
});

t.test('exact escapes', async (t) => {
  t.equal(quoteString("it's"), "'it\\'s'");
  t.equal(quoteString('a\\b'), "'a\\\\b'");
  t.equal(quoteString('\0\n\r\t\b\f'), "'\\0\\n\\r\\t\\b\\f'");
  t.equal(quoteString('\x01\x7f'), "'\\x01\\x7f'");
  t.equal(quoteString("'); DROP TABLE x; --"), "'\\'); DROP TABLE x; --'");
  t.equal(quoteString('😀'), "'😀'", 'Unicode is written as is');
  t.equal(kindOf(() => quoteString('half \ud83d pair')), 'invalid', 'an unpaired surrogate has no UTF-8 form');
  t.equal(kindOf(() => quoteString('\udc00')), 'invalid');
});

t.test('identifiers are back-quoted with escapes', async (t) => {
  t.equal(quoteIdentifier('events'), '`events`');
  t.equal(quoteIdentifier('we`ird'), '`we\\`ird`');
  t.equal(quoteIdentifier('a\\b'), '`a\\\\b`');
  t.equal(quoteIdentifier('x`; DROP TABLE t; --'), '`x\\`; DROP TABLE t; --`');
  for (const name of ['we`ird', 'a\\b', 'new\nline', '`', 'x`; DROP TABLE t; --']) {
    const read = readQuoted(quoteIdentifier(name), '`');
    t.equal(read.value, name);
    t.equal(read.rest, '');
  }
  t.equal(kindOf(() => quoteIdentifier('')), 'invalid');
});

t.test('integers are checked against their type', async (t) => {
  t.equal(literalFor('UInt8', 255), '255');
  t.equal(kindOf(() => literalFor('UInt8', 256)), 'invalid', 'out of range');
  t.equal(kindOf(() => literalFor('UInt32', -1)), 'invalid', 'negative unsigned');
  t.equal(literalFor('Int8', -128), '-128');
  t.equal(kindOf(() => literalFor('Int8', -129)), 'invalid');
  t.equal(literalFor('Int64', '-9223372036854775808'), '-9223372036854775808', 'large values as digit strings');
  t.equal(literalFor('UInt64', '18446744073709551615'), '18446744073709551615');
  t.equal(kindOf(() => literalFor('UInt64', '18446744073709551616')), 'invalid');
  t.equal(kindOf(() => literalFor('Int64', 2 ** 60)), 'invalid', 'numbers past 2^53 have lost digits already');
  t.equal(kindOf(() => literalFor('Int32', 1.5)), 'invalid');
  t.equal(kindOf(() => literalFor('Int32', '1; DROP TABLE x')), 'invalid');
  t.equal(kindOf(() => literalFor('Int32', '1e3')), 'invalid');
  t.equal(kindOf(() => literalFor('Int32', '')), 'invalid');
  t.equal(literalFor('UInt8', true), '1');
  t.equal(literalFor('UInt8', false), '0');
  t.equal(literalFor('Int32', ' 42 '), '42');
  t.equal(literalFor('Int32', '+7'), '7');
});

t.test('floats', async (t) => {
  t.equal(literalFor('Float64', 1.5), '1.5');
  t.equal(literalFor('Float64', -0.001), '-0.001');
  t.equal(literalFor('Float64', 1e21), '1e+21');
  t.equal(literalFor('Float32', '2.5e-3'), '2.5e-3');
  t.equal(literalFor('Float64', 'NaN'), 'nan');
  t.equal(literalFor('Float64', '-inf'), '-inf');
  t.equal(literalFor('Float64', Infinity), 'inf');
  t.equal(kindOf(() => literalFor('Float64', '1.5) OR (1')), 'invalid');
  t.equal(kindOf(() => literalFor('Float64', 'abc')), 'invalid');
  t.equal(kindOf(() => literalFor('Float64', [1])), 'invalid');
});

t.test('strings, nulls, wrappers and containers', async (t) => {
  t.equal(literalFor('String', "a'b"), "'a\\'b'");
  t.equal(literalFor('FixedString(4)', 'abcd'), "'abcd'");
  t.equal(kindOf(() => literalFor('String', 12)), 'invalid', 'a number is not a string');
  t.equal(kindOf(() => literalFor('String', null)), 'invalid', 'null only for Nullable');
  t.equal(kindOf(() => literalFor('String', { x: 1 })), 'invalid');
  t.equal(literalFor('Nullable(String)', null), 'NULL');
  t.equal(literalFor('Nullable(String)', 'x'), "'x'");
  t.equal(literalFor('LowCardinality(String)', "o'k"), "'o\\'k'");
  t.equal(literalFor('LowCardinality(Nullable(String))', null), 'NULL');
  t.equal(literalFor('Array(String)', ["a'", '\\']), "['a\\'', '\\\\']");
  t.equal(literalFor('Array(Array(UInt8))', [[1, 2], []]), '[[1, 2], []]');
  t.equal(literalFor('Array(Nullable(Int32))', [1, null]), '[1, NULL]');
  t.equal(kindOf(() => literalFor('Array(UInt8)', [1, 'x'])), 'invalid');
  t.equal(kindOf(() => literalFor('Array(UInt8)', 'x')), 'invalid');
  t.equal(literalFor('Tuple(UInt8, String)', [1, 'x']), "tuple(1, 'x')");
  t.equal(kindOf(() => literalFor('Tuple(UInt8, String)', [1])), 'invalid');
  t.equal(kindOf(() => literalFor('AggregateFunction(uniq, UInt64)', 'x')), 'invalid', 'types without a literal are refused');
});

t.test('text-parsed types are CAST with both parts escaped', async (t) => {
  t.equal(literalFor('Date', '2024-01-31'), "CAST('2024-01-31', 'Date')");
  t.equal(literalFor("DateTime('Europe/Paris')", '2024-01-31 10:00:00'), "CAST('2024-01-31 10:00:00', 'DateTime(\\'Europe/Paris\\')')");
  t.equal(literalFor('Decimal(9, 2)', '12.34'), "CAST('12.34', 'Decimal(9, 2)')", 'decimals keep their digits');
  t.equal(literalFor('Decimal(9, 2)', 12.5), "CAST('12.5', 'Decimal(9, 2)')");
  t.equal(kindOf(() => literalFor('Decimal(9, 2)', '1; DROP')), 'invalid');
  t.equal(literalFor("Enum8('a' = 1, 'it''s, (odd)' = 2)", "it's, (odd)"), "CAST('it\\'s, (odd)', 'Enum8(\\'a\\' = 1, \\'it\\'\\'s, (odd)\\' = 2)')");
  t.equal(literalFor('UUID', "'); DROP TABLE x; --"), "CAST('\\'); DROP TABLE x; --', 'UUID')", 'hostile text stays inside the literal');
  t.equal(kindOf(() => literalFor('Date', 20240131)), 'invalid');
});

t.test('type names parse with quotes and nesting', async (t) => {
  t.same(parseType('UInt8'), { name: 'UInt8', args: [] });
  t.same(parseType('Array(Nullable(String))'), { name: 'Array', args: ['Nullable(String)'] });
  t.same(parseType("Enum8('a,b' = 1, 'c)' = 2)"), { name: 'Enum8', args: ["'a,b' = 1", "'c)' = 2"] });
  t.same(parseType('Tuple(UInt8, Array(String))'), { name: 'Tuple', args: ['UInt8', 'Array(String)'] });
  t.equal(baseType('LowCardinality(Nullable(String))'), 'String');
});

t.test('statements that answer rows', async (t) => {
  t.equal(leadingKeyword('  select 1'), 'SELECT');
  t.equal(leadingKeyword('-- note\n/* more */ (SELECT 1)'), 'SELECT');
  t.equal(leadingKeyword('/* unterminated'), '');
  for (const sql of ['SELECT 1', 'with 1 as x select x', 'SHOW TABLES', 'DESCRIBE t', 'desc t', 'EXISTS TABLE t', '(select 1) union all (select 2)']) {
    t.ok(answersRows(sql), sql);
  }
  for (const sql of ['CREATE TABLE t (x UInt8) ENGINE = Memory', "INSERT INTO t VALUES (1)", 'INSERT INTO t SELECT 1', 'ALTER TABLE t DELETE WHERE 1', 'DROP TABLE t', 'OPTIMIZE TABLE t', '', '-- SELECT\nDROP TABLE t']) {
    t.notOk(answersRows(sql), JSON.stringify(sql));
  }
});

t.test('primary keys from engine_full', async (t) => {
  t.equal(primaryKeyExpression('MergeTree() PARTITION BY toYYYYMM(d) ORDER BY (id, ts) SETTINGS index_granularity = 8192'), '(id, ts)');
  t.equal(primaryKeyExpression('MergeTree() ORDER BY id SETTINGS index_granularity = 8192'), 'id');
  t.equal(primaryKeyExpression('MergeTree() PRIMARY KEY id ORDER BY (id, ts) SETTINGS index_granularity = 8192'), 'id', 'PRIMARY KEY wins over ORDER BY');
  t.equal(primaryKeyExpression('MergeTree(d, (a, b), 8192)'), '(a, b)', 'old syntax');
  t.equal(primaryKeyExpression('ReplacingMergeTree(d, intHash32(id), (id, intHash32(id)), 8192, ver)'), '(id, intHash32(id))', 'old syntax with sampling');
  t.equal(primaryKeyExpression("ReplicatedMergeTree('/zk/t', 'r1', d, (a), 8192)"), '(a)');
  t.equal(primaryKeyExpression('Memory'), null);
  t.same(keyColumns('(id, ts)'), ['id', 'ts']);
  t.same(keyColumns('id'), ['id']);
  t.same(keyColumns('tuple()'), []);
  t.same(keyColumns('(toDate(ts), id, `odd name`)'), ['id', 'odd name'], 'expressions are skipped, back-quoted names read');
});
