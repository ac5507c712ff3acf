import t from 'tap';
import { redactStatement } from '../../commands/database/statement-redaction.js';
import { CORPUS, SECRET, UNREADABLE } from '../helpers/statement-corpus.js';

for (const [engine, cases] of Object.entries(CORPUS)) {
  t.test(`${engine}: every literal, comment and number is masked, and nothing of the secret is left`, async (t) => {
    for (const [statement, expected] of cases) {
      const masked = redactStatement(engine, statement);
      if (typeof expected === 'string') t.equal(masked, expected, statement);
      else t.match(masked, expected, statement);
      t.notMatch(masked, SECRET, `${statement}: no piece of the secret`);
      t.equal(redactStatement(engine, masked), masked, `${statement}: masking again changes nothing`);
    }
  });
}

t.test('what no lexer reads is its digest only; the digest tells statements apart', async (t) => {
  const a = redactStatement('eventstore', "ALTER USER app PASSWORD 'S3cret'");
  t.match(a, UNREADABLE(''), 'an engine without a lexer: not even the first word');
  t.not(redactStatement('postgres', "SELECT 'a"), redactStatement('postgres', "SELECT 'b"));
  t.equal(redactStatement('postgres', "SELECT 'a"), redactStatement('postgres', "SELECT 'a"), 'the same statement, the same digest');
  const long = `SELECT 'S3cret'${' '.repeat(100_000)}`;
  t.match(redactStatement('postgres', long), UNREADABLE('SELECT'), 'a statement over 100,000 characters is not lexed');
  t.equal(redactStatement('postgres', long.slice(0, 100_000)), `SELECT '…'${' '.repeat(100_000 - 15)}`, 'one of 100,000 is');
});

t.test('statements without literals stay as they were typed', async (t) => {
  const plain: [string, string][] = [
    ['postgres', 'SELECT name FROM users WHERE id = $1 ORDER BY name'],
    ['mysql', 'SHOW TABLES'],
    ['columnar', 'SELECT count() FROM system.tables'],
    ['redis', 'GET key'],
    ['redis', 'PING'],
  ];
  for (const [engine, statement] of plain) t.equal(redactStatement(engine, statement), statement, `${engine}: ${statement}`);
});
