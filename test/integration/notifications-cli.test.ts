import { spawn } from 'node:child_process';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';
import { startReceiver } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
import { startTestServer } from '../helpers/test-server.js';

function slipway(env: Record<string, string>, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}

t.test('the CLI creates, lists, tests and deletes notification channels and shows their notifications', async (t) => {
  const receiver = await startReceiver(({ path }) => (path === '/down' ? 500 : 200));
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url) });
  t.teardown(() => s.close());
  const env = { SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };

  const created = await slipway(env, ['notification-channels', 'create', 'ops', '--type', 'webhook', `url=${receiver.url}/ok`, '--events', 'deployment.failed', 'backup.failed']);
  t.equal(created.status, 0, created.stderr);
  const id = /\(([0-9a-f-]{36})\)/.exec(created.stdout)?.[1];
  t.ok(id, created.stdout);
  t.match(created.stdout, /for deployment\.failed, backup\.failed/);
  t.match(created.stdout, /signing secret \(shown once\): [0-9a-f]{64}/);
  const down = JSON.parse((await slipway(env, ['channels', 'create', 'down', '--type', 'webhook', `url=${receiver.url}/down`, '--json'])).stdout).channel.id as string;

  const tested = await slipway(env, ['notification-channels', 'test', id!, '--event', 'backup.failed']);
  t.equal(tested.status, 0, tested.stderr);
  t.match(tested.stdout, 'delivered (200)');
  t.equal(JSON.parse(receiver.received[0]!.body).event, 'backup.failed');
  const failed = await slipway(env, ['channels', 'test', down]);
  t.equal(failed.status, 1, 'a test that was not delivered exits 1');
  t.match(failed.stdout, 'not delivered: the receiver answered HTTP 500');

  const list = await slipway(env, ['notification-channels', 'list']);
  t.equal(list.status, 0);
  t.match(list.stdout, /ops\s+webhook\s+ok\s+deployment\.failed,backup\.failed\s+all/);
  const notifications = await slipway(env, ['notification-channels', 'notifications', id!]);
  t.match(notifications.stdout, /backup\.failed\s+delivered\s+1/);
  const former = await slipway(env, ['channels', 'deliveries', id!]);
  t.equal(former.stdout, notifications.stdout, 'the former name `deliveries` does the same');
  t.match(former.stderr, /`notification-channels deliveries` is now `notification-channels notifications`/);

  t.equal((await slipway(env, ['notification-channels', 'delete', id!])).status, 0);
  t.notMatch((await slipway(env, ['notification-channels', 'list'])).stdout, /\bops\b/);
  const missing = await slipway(env, ['notification-channels', 'delete', id!]);
  t.not(missing.status, 0);
  t.match(missing.stderr, /not found/);
});
