import t from 'tap';
import { sameOrigin } from '../../src/http/exec/upgrade-checks.js';
import { ExecSessionSlots } from '../../src/http/exec/session-limits.js';
import { PidLine } from '../../src/runtime/docker-shell.js';

t.test('the wrapper’s pid line is read off the output, split anywhere, and nothing else is touched', async (t) => {
  const whole = new PidLine();
  t.equal(whole.take(Buffer.from('slipway-exec-pid 42\nhello\n')).toString(), 'hello\n');
  t.equal(whole.pid, 42);
  t.equal(whole.take(Buffer.from('slipway-exec-pid 7\n')).toString(), 'slipway-exec-pid 7\n', 'only the first line is the wrapper’s');
  const split = new PidLine();
  t.equal(split.take(Buffer.from('slipway-ex')).length, 0, 'a part of the line waits');
  t.equal(split.take(Buffer.from('ec-pid 1234\r\n# ')).toString(), '# ', 'a terminal’s CRLF too');
  t.equal(split.pid, 1234);
  const none = new PidLine();
  t.equal(none.take(Buffer.from('OCI runtime exec failed: sh not found\n')).toString(), 'OCI runtime exec failed: sh not found\n', 'without the wrapper’s line, all of it passes');
  t.equal(none.pid, null);
  const cut = new PidLine();
  t.equal(cut.take(Buffer.from('slipway')).length, 0);
  t.equal(cut.rest().toString(), 'slipway', 'what was held back comes out when the output ends');
});

t.test('3 sessions per service, 20 in all; a slot comes back once', async (t) => {
  const slots = new ExecSessionSlots(3, 4);
  const a = [slots.take('a'), slots.take('a'), slots.take('a')];
  t.throws(() => slots.take('a'), { status: 429, code: 'too_many_sessions' });
  const b = slots.take('b');
  t.throws(() => slots.take('c'), { status: 429, message: /installation/ }, 'the installation’s limit');
  a[0]!();
  a[0]!();
  t.doesNotThrow(() => slots.take('a'), 'a given-back slot is free again');
  t.throws(() => slots.take('c'), { status: 429, code: 'too_many_sessions' }, 'given back once, not twice');
  b();
  t.doesNotThrow(() => slots.take('c'));
});

t.test('same origin: the Host header’s host and port, over http or https', async (t) => {
  t.ok(sameOrigin('http://127.0.0.1:3000', '127.0.0.1:3000'));
  t.ok(sameOrigin('https://Slipway.example.com', 'slipway.example.com'));
  t.notOk(sameOrigin('http://127.0.0.1:3001', '127.0.0.1:3000'), 'another port');
  t.notOk(sameOrigin('https://app.slipway.example.com', 'slipway.example.com'), 'a sibling subdomain');
  t.notOk(sameOrigin('null', 'slipway.example.com'), 'an opaque origin');
  t.notOk(sameOrigin('', 'slipway.example.com'), 'none');
  t.notOk(sameOrigin('file:///x', ''), 'no host');
});
