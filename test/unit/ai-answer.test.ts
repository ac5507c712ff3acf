import t from 'tap';
import { parseExplanation } from '../../src/integrations/ai/answer.js';
import { boundLogLines, failureExplanationSchema } from '../../src/integrations/ai/explanation.js';

const good = {
  summary: 'The build failed.',
  likelyCause: 'npm ci found package-lock.json out of sync.',
  suggestedFix: 'Run npm install and commit the lockfile.',
  commands: ['npm install', 'git add package-lock.json'],
};
const json = JSON.stringify(good);

t.test('parseExplanation reads the object however the model wrapped it', async (t) => {
  t.same(parseExplanation(json), good, 'plain JSON');
  t.same(parseExplanation(`  \n${JSON.stringify(good, null, 2)}\n`), good, 'indented, with blank lines around');
  t.same(parseExplanation('```json\n' + json + '\n```'), good, 'a ```json fence');
  t.same(parseExplanation('```\n' + json + '\n```'), good, 'a bare fence');
  t.same(parseExplanation(`Here is what went wrong:\n\n${json}\n\nLet me know if you need more.`), good, 'prose around it');
  t.same(parseExplanation(`The shape is {"summary": string}. My answer: ${json}`), good, 'a brace pair before the real object');
  t.same(parseExplanation(JSON.stringify({ explanation: good })), good, 'wrapped in an explanation key');
});

t.test('braces and quotes inside strings do not confuse it', async (t) => {
  const tricky = { ...good, likelyCause: 'DATABASE_URL is "${db.DATABASE_URL}" } and { never resolved' };
  t.same(parseExplanation(`Answer: ${JSON.stringify(tricky)} done`), tricky);
});

t.test('it forgives missing or too many commands, trims, and caps long texts', async (t) => {
  const { commands: _, ...noCommands } = good;
  t.same(parseExplanation(JSON.stringify(noCommands)), { ...noCommands, commands: [] }, 'no commands: none');
  t.same(parseExplanation(JSON.stringify({ ...noCommands, commands: null })), { ...noCommands, commands: [] }, 'null commands: none');
  const twelve = Array.from({ length: 12 }, (_, i) => `echo ${i}`);
  t.same(parseExplanation(JSON.stringify({ ...good, commands: twelve }))?.commands, twelve.slice(0, 10), 'the first ten commands');
  t.same(parseExplanation(JSON.stringify({ ...good, summary: '  padded  ' }))?.summary, 'padded');
  const long = parseExplanation(JSON.stringify({ ...good, suggestedFix: 'x'.repeat(5000) }));
  t.equal(long?.suggestedFix.length, 2000, 'capped at 2000 characters');
  t.ok(long?.suggestedFix.endsWith('…'));
  t.notOk(Object.hasOwn(parseExplanation(JSON.stringify({ ...good, extra: 'dropped' }))!, 'extra'), 'unknown keys dropped');
});

t.test('it answers null when there is no valid explanation', async (t) => {
  t.equal(parseExplanation(''), null, 'empty');
  t.equal(parseExplanation('The deployment failed because the lockfile is stale.'), null, 'prose only');
  t.equal(parseExplanation('{"summary": "cut off", "likelyCause": "the answ'), null, 'truncated JSON');
  t.equal(parseExplanation(JSON.stringify({ ...good, summary: '' })), null, 'an empty summary');
  t.equal(parseExplanation(JSON.stringify({ ...good, likelyCause: '   ' })), null, 'a blank cause');
  t.equal(parseExplanation(JSON.stringify({ summary: good.summary, likelyCause: good.likelyCause })), null, 'no suggestedFix');
  t.equal(parseExplanation(JSON.stringify({ ...good, commands: ['ok', 3] })), null, 'a command that is not a string');
  t.equal(parseExplanation(JSON.stringify({ ...good, commands: 'npm install' })), null, 'commands not an array');
  t.equal(parseExplanation('42'), null, 'a number');
  t.equal(parseExplanation('null'), null, 'null');
});

t.test('the schema itself', async (t) => {
  t.ok(failureExplanationSchema.safeParse(good).success);
  t.notOk(failureExplanationSchema.safeParse({ ...good, commands: Array(11).fill('ls') }).success, 'more than ten commands');
  t.notOk(failureExplanationSchema.safeParse({ ...good, summary: ' ' }).success);
});

t.test('boundLogLines keeps the last lines within both bounds', async (t) => {
  const many = Array.from({ length: 500 }, (_, i) => `line ${i}`);
  t.same(boundLogLines(many), many.slice(-200), 'at most 200 lines by default: the last ones');
  t.same(boundLogLines(many, { maxLines: 3 }), ['line 497', 'line 498', 'line 499']);
  t.same(boundLogLines([]), []);
  t.same(boundLogLines(['a', 'b']), ['a', 'b'], 'short logs whole');

  const hundred = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(97)}`); // 99 bytes + newline
  const bounded = boundLogLines(hundred, { maxBytes: 1000 });
  t.same(bounded, hundred.slice(-10), '10 lines of 100 bytes fill 1000 bytes');
  t.same(boundLogLines(hundred, { maxBytes: 999 }), hundred.slice(-9), 'one byte less: one line less');
  t.same(boundLogLines(['é'.repeat(10), 'ab'], { maxBytes: 24 }), ['é'.repeat(10), 'ab'], '21 + 3 bytes fit in 24');
  t.same(boundLogLines(['é'.repeat(10), 'ab'], { maxBytes: 23 }), ['ab'], 'multi-byte characters count in bytes');

  const total = (lines: string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  const mixed = Array.from({ length: 1000 }, (_, i) => `${i} ${'ü'.repeat(i % 200)}`);
  const kept = boundLogLines(mixed);
  t.ok(kept.length < 200, `the byte bound binds first (${kept.length} lines)`);
  t.ok(total(kept) <= 16_000, `within 16,000 bytes (${total(kept)})`);
  t.same(kept, mixed.slice(-kept.length), 'a tail of the log, in order');
  t.ok(total(mixed.slice(-(kept.length + 1))) > 16_000, 'and the longest such tail');
});

t.test('boundLogLines truncates the newest line when it alone is too long', async (t) => {
  const huge = `Error: ${'🚀'.repeat(10_000)}`;
  const [cut, ...rest] = boundLogLines(['earlier', huge], { maxBytes: 1000 });
  t.same(rest, [], 'only that line');
  t.ok(cut!.startsWith('Error: 🚀'), 'its start is kept');
  t.ok(cut!.endsWith(' … [truncated]'), 'and says it was cut');
  t.ok(Buffer.byteLength(cut!) + 1 <= 1000, `within the bound (${Buffer.byteLength(cut!)} bytes)`);
  t.notOk(cut!.includes('\uFFFD'), 'no character split in half');
  t.same(boundLogLines(['x'.repeat(5000), 'the end'], { maxBytes: 1000 }), ['the end'], 'an older over-long line ends the tail');
});
