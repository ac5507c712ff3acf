import { BrowserError } from './browser.js';

/**
 * SQL text for ClickHouse values and names. ClickHouse 18.16 has no server-side query parameters, so every
 * value Slipway puts in a statement goes through here.
 *
 * Rules (ClickHouse's lexer and `readQuotedStringWithSQLStyle`): inside '…' and `…` a backslash escapes
 * the next character; `\0 \b \f \n \r \t` and `\xHH` are recognised. We escape `\` and the quote character,
 * and write every control character (and DEL) as an escape so the statement text never carries a raw NUL,
 * newline or other control byte. Everything else, including any Unicode, is written as its UTF-8 bytes.
 * JavaScript strings with unpaired surrogates have no UTF-8 form and are refused.
 */

const CONTROL_ESCAPES: Record<string, string> = {
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** With the `u` flag a well-formed pair is one code point: only unpaired halves match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function escapeBody(text: string, quote: "'" | '`'): string {
  if (LONE_SURROGATE.test(text)) throw new BrowserError('invalid', 'text with an unpaired UTF-16 surrogate cannot be stored');
  let out = '';
  for (const ch of text) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else {
      const code = ch.codePointAt(0)!;
      if (code < 0x20 || code === 0x7f) out += CONTROL_ESCAPES[ch] ?? '\\x' + code.toString(16).padStart(2, '0');
      else out += ch;
    }
  }
  return out;
}

/** A string literal: `'…'`. */
export function quoteString(text: string): string {
  return `'${escapeBody(text, "'")}'`;
}

/** A quoted identifier: `` `…` ``. Names should also be checked against the catalogue before use. */
export function quoteIdentifier(name: string): string {
  if (name.length === 0) throw new BrowserError('invalid', 'an identifier cannot be empty');
  return '`' + escapeBody(name, '`') + '`';
}

/** A parsed ClickHouse type: `Array(Nullable(String))` is `{ name: 'Array', args: ['Nullable(String)'] }`. */
export interface ParsedType {
  name: string;
  args: string[];
}

/** Splits a type name into its name and top-level arguments (quotes and nested parentheses respected). */
export function parseType(type: string): ParsedType {
  const text = type.trim();
  const open = text.indexOf('(');
  if (open < 0) return { name: text, args: [] };
  if (!text.endsWith(')')) throw new BrowserError('invalid', `cannot read the type ${JSON.stringify(type)}`);
  const name = text.slice(0, open).trim();
  const inner = text.slice(open + 1, -1);
  const args: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "'" || c === '`' || c === '"') {
      // Skip a quoted part (enum names, time zones), honouring backslash escapes.
      const q = c;
      i++;
      while (i < inner.length && inner[i] !== q) {
        if (inner[i] === '\\') i++;
        i++;
      }
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      args.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = inner.slice(start).trim();
  if (last.length > 0 || args.length > 0) args.push(last);
  return { name, args };
}

/** The type without `Nullable(…)` and `LowCardinality(…)` wrappers. */
export function baseType(type: string): string {
  const t = parseType(type);
  if ((t.name === 'Nullable' || t.name === 'LowCardinality') && t.args.length === 1) return baseType(t.args[0]!);
  return type.trim();
}

const INT_RANGES: Record<string, [bigint, bigint]> = {
  Int8: [-(2n ** 7n), 2n ** 7n - 1n],
  Int16: [-(2n ** 15n), 2n ** 15n - 1n],
  Int32: [-(2n ** 31n), 2n ** 31n - 1n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
  UInt8: [0n, 2n ** 8n - 1n],
  UInt16: [0n, 2n ** 16n - 1n],
  UInt32: [0n, 2n ** 32n - 1n],
  UInt64: [0n, 2n ** 64n - 1n],
};

const FLOAT_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Types whose values are written as `CAST('<text>', '<type>')`: ClickHouse parses the text as that type. */
const TEXT_PARSED = new Set(['Date', 'DateTime', 'DateTime64', 'UUID', 'Enum8', 'Enum16', 'Decimal', 'Decimal32', 'Decimal64', 'Decimal128', 'IPv4', 'IPv6']);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function wrong(type: string, value: unknown, expected: string): BrowserError {
  return new BrowserError('invalid', `a ${type} value must be ${expected}, got ${describe(value)}`);
}

/**
 * The literal for `value` in a column of ClickHouse type `type`. Values are checked against the type:
 * integers must be whole and in range (numbers must be safe integers; larger ones come as digit strings),
 * floats finite numbers or numeric text (`nan`, `inf`, `-inf` too), strings strings, arrays arrays,
 * `null` only for Nullable types. Dates, UUIDs, enums and decimals are text that ClickHouse parses as the
 * column's type (`CAST('…', 'Type')`, both parts escaped), so decimals keep their exact digits.
 */
export function literalFor(type: string, value: unknown): string {
  const t = parseType(type);
  if (t.name === 'LowCardinality' && t.args.length === 1) return literalFor(t.args[0]!, value);
  if (t.name === 'Nullable' && t.args.length === 1) return value === null ? 'NULL' : literalFor(t.args[0]!, value);
  if (value === null || value === undefined) throw new BrowserError('invalid', `a ${type} column cannot hold null`);

  const range = INT_RANGES[t.name];
  if (range && t.args.length === 0) {
    let n: bigint;
    if (typeof value === 'boolean') n = value ? 1n : 0n;
    else if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) throw wrong(type, value, 'a whole number (pass large ones as a string of digits)');
      n = BigInt(value);
    } else if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())) n = BigInt(value.trim());
    else throw wrong(type, value, 'a whole number');
    if (n < range[0] || n > range[1]) throw new BrowserError('invalid', `${n} is out of range for ${type}`);
    return n.toString();
  }

  if ((t.name === 'Float32' || t.name === 'Float64') && t.args.length === 0) {
    if (typeof value === 'number') {
      if (Number.isNaN(value)) return 'nan';
      if (value === Infinity) return 'inf';
      if (value === -Infinity) return '-inf';
      return String(value);
    }
    if (typeof value === 'string') {
      const s = value.trim().toLowerCase();
      if (s === 'nan' || s === 'inf' || s === '+inf' || s === '-inf') return s.replace('+', '');
      if (FLOAT_TEXT.test(s)) return s;
    }
    throw wrong(type, value, 'a number');
  }

  if (t.name === 'String' || t.name === 'FixedString') {
    if (typeof value !== 'string') throw wrong(type, value, 'a string');
    return quoteString(value);
  }

  if (t.name === 'Array' && t.args.length === 1) {
    if (!Array.isArray(value)) throw wrong(type, value, 'an array');
    return `[${value.map((v) => literalFor(t.args[0]!, v)).join(', ')}]`;
  }

  if (t.name === 'Tuple' && t.args.length > 0) {
    if (!Array.isArray(value) || value.length !== t.args.length) throw wrong(type, value, `an array of ${t.args.length} elements`);
    // Tuple(name Type) in newer servers: the type is the last word group after the name.
    return `tuple(${value.map((v, i) => literalFor(tupleElementType(t.args[i]!), v)).join(', ')})`;
  }

  if (TEXT_PARSED.has(t.name)) {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number' && Number.isFinite(value) && (t.name.startsWith('Decimal') || t.name.startsWith('DateTime'))) text = String(value);
    else throw wrong(type, value, 'a string');
    if (t.name.startsWith('Decimal') && !DECIMAL_TEXT.test(text.trim())) throw wrong(type, value, 'a decimal number');
    return `CAST(${quoteString(text)}, ${quoteString(type.trim())})`;
  }

  throw new BrowserError('invalid', `values of type ${type} cannot be written here`);
}

function tupleElementType(arg: string): string {
  // `Tuple(a UInt8, b String)` (named elements) or `Tuple(UInt8, String)`.
  const m = /^[A-Za-z_][A-Za-z0-9_]*\s+([A-Z].*)$/s.exec(arg);
  return m ? m[1]! : arg;
}

/**
 * The first keyword of a statement, upper-cased, after whitespace, comments and opening parentheses
 * (`(SELECT …)`, `/* note *\/ select …`): what decides whether a statement answers rows.
 */
export function leadingKeyword(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && /[\s(]/.test(sql[i]!)) i++;
    if (sql.startsWith('--', i) || sql.startsWith('#', i)) {
      const end = sql.indexOf('\n', i);
      if (end < 0) return '';
      i = end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return '';
      i = end + 2;
    } else break;
  }
  const m = /^[A-Za-z]+/.exec(sql.slice(i));
  return m ? m[0].toUpperCase() : '';
}

/** Statements that answer a result set; every other statement runs as a command that answers none. */
const RESULT_STATEMENTS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN']);

export function answersRows(sql: string): boolean {
  return RESULT_STATEMENTS.has(leadingKeyword(sql));
}

/** Splits at top-level commas, outside parentheses, brackets and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '`' || c === '"') {
      const q = c;
      i++;
      while (i < text.length && text[i] !== q) {
        if (text[i] === '\\') i++;
        i++;
      }
    } else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last.length > 0) parts.push(last);
  return parts;
}

/** `(a, b)` → `a, b` when the parentheses enclose the whole text. */
function unwrapParens(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')')) {
    let depth = 0;
    let whole = true;
    for (let i = 0; i < t.length; i++) {
      if (t[i] === '(') depth++;
      else if (t[i] === ')') depth--;
      if (depth === 0 && i < t.length - 1) {
        whole = false;
        break;
      }
    }
    if (!whole) break;
    t = t.slice(1, -1).trim();
  }
  return t;
}

/**
 * The column names of a key expression as ClickHouse prints it (`(id, ts)`, `id`, `tuple()`,
 * `(toDate(ts), id)`): the elements that are plain (possibly back-quoted) identifiers, in key order.
 * Elements that are expressions of columns are skipped.
 */
export function keyColumns(expression: string): string[] {
  let text = unwrapParens(expression);
  if (/^tuple\s*\(/i.test(text)) text = unwrapParens(text.replace(/^tuple\s*/i, ''));
  const names: string[] = [];
  for (const part of splitTopLevel(text)) {
    const bare = /^[A-Za-z_][A-Za-z0-9_.]*$/.exec(part);
    if (bare) names.push(part);
    else if (/^`(?:[^`\\]|\\.)*`$/s.test(part)) names.push(part.slice(1, -1).replace(/\\(.)/gs, '$1'));
  }
  return names;
}

/**
 * The primary key expression of a MergeTree-family table from its `engine_full` text: `PRIMARY KEY …`
 * when given, else `ORDER BY …`; for the old syntax (`MergeTree(date, (a, b), 8192)`), the argument just
 * before the index granularity. Null when the engine has none.
 */
export function primaryKeyExpression(engineFull: string): string | null {
  const clause = /\b(PRIMARY KEY|ORDER BY)\s+/g;
  let primary: string | null = null;
  let order: string | null = null;
  for (let m = clause.exec(engineFull); m; m = clause.exec(engineFull)) {
    const start = m.index + m[0].length;
    const rest = engineFull.slice(start);
    const end = /\s+(PARTITION BY|PRIMARY KEY|ORDER BY|SAMPLE BY|TTL|SETTINGS)\b/.exec(rest);
    const expression = (end ? rest.slice(0, end.index) : rest).trim();
    if (m[1] === 'PRIMARY KEY') primary = expression;
    else order = expression;
  }
  if (primary !== null || order !== null) return primary ?? order;
  const old = /^\s*\w*MergeTree\s*\((.*)\)\s*$/s.exec(engineFull);
  if (!old) return null;
  const args = splitTopLevel(old[1]!);
  // Replicated engines start with two quoted strings (ZooKeeper path, replica name).
  const firstGranularity = args.findIndex((a, i) => i > 0 && /^\d+$/.test(a));
  if (firstGranularity < 1) return null;
  return args[firstGranularity - 1]!;
}
