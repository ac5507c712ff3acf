import t from 'tap';
import { startExecSession } from '../../commands/exec-session/handlers.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { isRefusal, openExec, type ExecRefusal, type ExecSocket } from '../helpers/exec-client.js';
import { createProject, createService, testWebService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const opened = (x: ExecSocket | ExecRefusal): ExecSocket => {
  if (isRefusal(x)) throw new Error(`the session was refused: ${x.status} ${JSON.stringify(x.body)}`);
  return x;
};
const endsOf = async (s: TestServer, projectId: string) =>
  ((await s.call('GET', `/api/projects/${projectId}/events?type=ExecSessionEnded&limit=1000`)).body.events as Record<string, any>[]).map((e) => ({ stream: e.streamId as string, actor: e.actor as string, ...(e.data as { reason: string; exitCode: number | null; durationMs: number }) }));

t.test('sessions end when idle, when Slipway stops, and after a crash', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const { env } = await deployEnv({ SLIPWAY_EXEC_IDLE: '4' });
  let s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Lifecycle');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, testWebService('web'));
  const { done } = await deploy(s, svc.id);
  t.equal(outcome(done), 'succeeded');
  const container = `slipway-${svc.slug}-${done.id}`;
  const processesIn = async (): Promise<string[]> => (((await docker.getContainer(container).top()) as { Processes?: string[][] }).Processes ?? []).map((row) => row.at(-1) ?? '');

  const idle = opened(await openExec(s.url, svc.id, s.key, { query: 'command=sleep%20311' }));
  const idleStarted = Date.now();
  const idleEnd = await idle.closed;
  t.equal(idleEnd.code, 4000, 'a session without input or output is closed (4000)');
  t.ok(Date.now() - idleStarted >= 3900, 'after the idle time, not before');
  await waitFor('the idle command gone', processesIn, (ps) => !ps.some((x) => x.includes('sleep 311')), 10_000);

  const typing = opened(await openExec(s.url, svc.id, s.key, { query: 'tty=1' }));
  for (let i = 0; i < 7; i++) {
    typing.ws.send(Buffer.from(`echo tick-${i}\n`), { binary: true });
    await typing.waitFor(`tick-${i}\r\n`);
    await new Promise((r) => setTimeout(r, 800));
  }
  t.equal(typing.ws.readyState, typing.ws.OPEN, 'a session in use stays open past the idle time');
  typing.ws.close();

  // 400 MB of output to a client that reads nothing: the server must hold it back, not buffer it.
  const rssBefore = process.memoryUsage().rss;
  const flood = opened(await openExec(s.url, svc.id, s.key, { query: `command=${encodeURIComponent('head -c 400000000 /dev/zero; echo done')}` }));
  flood.ws.pause();
  await waitFor('the flood running', processesIn, (ps) => ps.some((x) => x.includes('head -c 400000000')), 10_000);
  await new Promise((r) => setTimeout(r, 1500));
  t.ok((await processesIn()).some((x) => x.includes('head -c 400000000')), 'a command whose output is not read waits for its reader');
  const grown = process.memoryUsage().rss - rssBefore;
  t.ok(grown < 100_000_000, `the server did not buffer it (its memory grew by ${Math.round(grown / 1e6)} MB)`);
  flood.ws.terminate();
  await waitFor('the flood gone', processesIn, (ps) => !ps.some((x) => x.includes('head -c 400000000')), 10_000);

  const cut = opened(await openExec(s.url, svc.id, s.key, { query: 'command=sleep%20312' }));
  await waitFor('the command running', processesIn, (ps) => ps.some((x) => x.includes('sleep 312')), 10_000);
  // A session Slipway recorded as started and never ended, as a crash would leave it.
  const orphan = await startExecSession(s.app.commandContext('key:crashed'), { serviceId: svc.id, projectId: p.id, containerName: container, command: ['sh'], tty: true });
  await s.stopKeepingData();
  t.equal((await cut.closed).code, 1001, 'stopping Slipway closes open sessions (1001)');
  t.notOk((await processesIn()).some((x) => x.includes('sleep 312')), 'and kills their commands before it stops');

  s = await startTestServer(env, s.dataDir);
  const ends = await waitFor('the ends recorded', () => endsOf(s, p.id), (list) => list.length >= 4, 10_000);
  t.match(ends.find((e) => e.reason === 'idle'), { exitCode: null, actor: /^key:/ }, 'idle');
  t.match(ends.find((e) => e.reason === 'shutdown'), { exitCode: null }, 'shutdown');
  t.match(ends.find((e) => e.stream === `execsession-${orphan.id}`), { reason: 'interrupted', exitCode: null, actor: 'system:exec-sessions' }, 'a session a crash left open ends interrupted at the next start');
});
