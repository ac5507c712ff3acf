import t, { type Test } from 'tap';
import { BrowserError } from '../../src/engines/browser.js';
import { splitCommandLine } from '../../src/engines/redis-command-line.js';

const split = (line: string) => splitCommandLine(line).map((b) => b.toString('utf8'));

function invalid(t: Test, line: string, why: string) {
  let caught: unknown;
  try {
    splitCommandLine(line);
  } catch (error) {
    caught = error;
  }
  t.ok(caught instanceof BrowserError && caught.kind === 'invalid', why);
}

t.test('plain words split on any whitespace', async (t) => {
  t.same(split('SET key value'), ['SET', 'key', 'value']);
  t.same(split('  GET \t key\r\n'), ['GET', 'key']);
  t.same(split(''), []);
  t.same(split('   '), []);
  t.same(split('héllo wörld'), ['héllo', 'wörld'], 'unicode stays as typed');
});

t.test('double quotes keep spaces and read escapes', async (t) => {
  t.same(split('SET k "hello world"'), ['SET', 'k', 'hello world']);
  t.same(split('"a\\nb" "t\\tt" "q\\"q" "b\\\\s" "r\\rx" "\\a\\b"'), ['a\nb', 't\tt', 'q"q', 'b\\s', 'r\rx', '\x07\b']);
  t.same(split('"\\x41\\x62"'), ['Ab'], '\\xHH is a byte');
  t.same(split('"\\xc3\\xa9"'), ['é'], 'bytes make UTF-8');
  t.same([...splitCommandLine('"\\x00\\xff"')[0]!], [0, 255], 'any byte, including NUL and 0xff');
  t.same(split('"\\xZZ"'), ['xZZ'], 'an \\x without two hex digits is a plain x, as in redis-cli');
  t.same(split('"\\q"'), ['q'], 'an unknown escape is the character');
  t.same(split('""'), [''], 'an empty quoted argument is an argument');
  t.same(split('SET k ""'), ['SET', 'k', '']);
});

t.test('single quotes are literal except for \\\'', async (t) => {
  t.same(split("SET k 'a \\n b'"), ['SET', 'k', 'a \\n b']);
  t.same(split("'it\\'s'"), ["it's"]);
  t.same(split("'say \"hi\"'"), ['say "hi"']);
  t.same(split("''"), ['']);
});

t.test('a quote may open in the middle of an argument', async (t) => {
  t.same(split('ab"c d"'), ['abc d']);
  t.same(split("x'y z'"), ['xy z']);
});

t.test('unbalanced quotes and text glued after a closing quote are refused', async (t) => {
  invalid(t, 'SET k "open', 'unterminated double quote');
  invalid(t, "SET k 'open", 'unterminated single quote');
  invalid(t, 'SET k "ends with escape\\"', 'the escaped quote does not close');
  invalid(t, '"a"b', 'text right after a closing double quote');
  invalid(t, "'a'b", 'text right after a closing single quote');
  invalid(t, '"', 'a lone quote');
});
