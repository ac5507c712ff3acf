import t from 'tap';
import { diffVariables, parseEnvFile } from '../../src/dashboard/env-file.js';

t.test('a pasted .env file: comments, export, quotes, inline comments, the last of a repeated key', async (t) => {
  const text = ['# a comment', '', 'export A=1', 'B = "two words"', "C='${db.DATABASE_URL}'", 'D=value # note', 'E="line\\nbreak"', 'not a line', '1X=bad', 'A=again'].join('\n');
  t.same(parseEnvFile(text), [
    { key: 'A', value: 'again' },
    { key: 'B', value: 'two words' },
    { key: 'C', value: '${db.DATABASE_URL}' },
    { key: 'D', value: 'value' },
    { key: 'E', value: 'line\nbreak' },
  ]);
});

t.test('the diff before saving: added, changed, the same; nothing removed', async (t) => {
  const current = [
    { key: 'A', value: '1' },
    { key: 'B', value: '2' },
    { key: 'KEEP', value: 'x' },
  ];
  t.same(diffVariables(current, [{ key: 'A', value: '1' }, { key: 'B', value: '3' }, { key: 'C', value: '4' }]), [
    { key: 'A', kind: 'same', before: '1', after: '1' },
    { key: 'B', kind: 'changed', before: '2', after: '3' },
    { key: 'C', kind: 'added', after: '4' },
  ]);
});
