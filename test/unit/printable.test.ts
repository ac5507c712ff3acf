import t from 'tap';
import { printable, reasonText } from '../../commands/shared/printable.js';
import { deployment } from '../../commands/deployment/aggregate.js';
import { name } from '../../src/http/validation.js';
import { deciderSpec } from '../helpers/decider-spec.js';

t.test('stored output keeps text, tabs and newlines, and loses escape sequences and control characters', async (t) => {
  t.equal(printable('\u001b[31mred\u001b[0m and \u001b[1;4mbold\u001b[m'), 'red and bold', 'colour codes go whole, not as "[31m"');
  t.equal(printable('\u001b]0;pwned title\u0007after'), 'after', 'an OSC title sequence');
  t.equal(printable('\u001b]8;;http://evil/\u001b\\link\u001b]8;;\u001b\\'), 'link', 'an OSC hyperlink');
  t.equal(printable('a\u0000b\u0008c\rd\u007fe\u009bf'), 'abcdef', 'NUL, backspace, carriage return, DEL, C1');
  t.equal(printable('col1\tcol2\nnext'), 'col1\tcol2\nnext');
  t.equal(printable('café ✓ 日本'), 'café ✓ 日本');
  t.equal(reasonText('x'.repeat(5000)).length, 2002, 'a reason is cut to 2,000 characters');
});

t.test('a NUL in a failure reason cannot stop the final event', async (t) => {
  const running = deciderSpec(deployment).given().when('queue', 's', 'p').given().when('start').given();
  running.when('fail', 'git said \u0000\u001b[2Jboom').then(t, [{ type: 'DeploymentFailed', data: { reason: 'git said boom' } }]);
});

t.test('names refuse invisible format characters and line breaks', async (t) => {
  for (const bad of ['admin\u202Etxt.exe', 'a\u200Bb', 'x\u2066y\u2069', 'soft\u00ADhyphen', 'two\nlines', 'tab\tbed', 'l\u2028s']) {
    // Labels spell the characters out: a raw U+2028 would break the TAP line itself.
    t.notOk(name(100).safeParse(bad).success, bad.replace(/[^\x21-\x7e]/g, (c) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
  for (const good of ['Shop', 'Café Ünïcode', '日本のショップ', 'my-app 2']) t.ok(name(100).safeParse(good).success, good);
});
