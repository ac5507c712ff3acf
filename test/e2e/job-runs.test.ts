import t from 'tap';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { createKey, createProject, createService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { readSse } from '../helpers/sse.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

t.setTimeout(300_000);

const SECRET = 'run-secret-value-8f3k2m9q';
const ENDED = ['succeeded', 'failed', 'timed_out', 'canceled'];

const runOf = async (s: TestServer, id: string) => (await s.call('GET', `/api/job-runs/${id}`)).body.run as Record<string, any>;
const ended = (s: TestServer, id: string, timeoutMs = 60_000) => waitFor(`run ${id} ended`, () => runOf(s, id), (r) => ENDED.includes(r?.status), timeoutMs);
const linesOf = async (s: TestServer, id: string) => ((await s.call('GET', `/api/job-runs/${id}/logs`)).body.logs as { line: string; stream: string }[]);
async function start(s: TestServer, serviceId: string, body: Record<string, unknown>) {
  const r = await s.call('POST', `/api/services/${serviceId}/runs`, { body });
  if (r.status !== 200) throw new Error(`run: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run as Record<string, any>;
}
const containerGone = async (id: string) => docker.getContainer(`slipway-run-${id}`).inspect().then(() => false, () => true);

t.test('one-off commands: output, exit code, stream, timeout, cancel, scope, redaction, a restart in between', { skip: await requireDocker() }, async (t) => {
  const { env } = await deployEnv({ SLIPWAY_PROXY: 'off' });
  let s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Runs');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, {
    name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8000,
    env: [{ key: 'GREETING', value: 'hello' }, { key: 'API_TOKEN', value: SECRET }],
  });

  const early = await s.call('POST', `/api/services/${svc.id}/runs`, { body: { command: 'echo hi' } });
  t.match(early, { status: 409, body: { error: { code: 'conflict', message: /no release yet/ } } }, 'a service never deployed runs nothing');
  const { done } = await deploy(s, svc.id);
  t.equal(outcome(done), 'succeeded');

  await t.test('bad input is 400 and records nothing', async (t) => {
    for (const body of [{}, { command: '' }, { command: '   ' }, { command: [] }, { command: [''] }, { command: 'x', timeoutSeconds: 0 }, { command: 'x', timeoutSeconds: 1.5 }, { command: 'x', extra: 1 }, { command: 42 }]) {
      const r = await s.call('POST', `/api/services/${svc.id}/runs`, { body });
      t.equal(r.status, 400, JSON.stringify(body));
      t.equal(r.body.error.code, 'validation_failed');
    }
    t.same((await s.call('GET', `/api/services/${svc.id}/runs`)).body.runs, [], 'no run was recorded');
  });

  await t.test('output, exit code and duration; the stream: snapshot, lines, the end; secrets redacted', async (t) => {
    const queued = await start(s, svc.id, { command: 'echo "$GREETING"; echo "token $API_TOKEN"; sleep 0.5; echo oops "$API_TOKEN" >&2; exit 3' });
    t.match(queued, { serviceId: svc.id, jobId: null, trigger: 'one-off', status: 'queued', command: ['sh', '-c', /GREETING/], exitCode: null });
    const stream = await readSse(`${s.url}/api/job-runs/${queued.id}/stream`, s.key);
    t.equal(stream.status, 200);
    await stream.ended;
    const names = stream.events.map((e) => e.event).filter((e) => e !== 'ping');
    t.equal(names[0], 'snapshot', 'the snapshot first');
    t.equal(names.at(-1), 'end', 'the end last');
    const streamed = [...stream.events[0]!.data, ...stream.events.filter((e) => e.event === 'log').map((e) => e.data)].map((l: { line: string }) => l.line);
    t.ok(streamed.includes('hello') && streamed.includes('token [redacted]'), 'its lines, redacted');
    const end = stream.events.at(-1)!.data.run;
    t.match(end, { id: queued.id, status: 'failed', exitCode: 3 }, 'the end carries the final state');

    const run = await runOf(s, queued.id);
    t.match(run, { status: 'failed', exitCode: 3, reason: /exited with code 3/ });
    t.ok(run.durationMs >= 400 && run.durationMs < 30_000, `its duration (${run.durationMs} ms)`);
    t.ok(run.startedAt && run.finishedAt, 'started and finished');
    const logs = await linesOf(s, queued.id);
    t.same(logs.filter((l) => l.stream !== 'system').map((l) => [l.stream, l.line]), [['stdout', 'hello'], ['stdout', 'token [redacted]'], ['stderr', 'oops [redacted]']], 'its output by stream');
    t.notMatch(JSON.stringify(logs) + JSON.stringify(run), SECRET, 'the secret value is in neither the log nor the reason');
    t.match(run.reason, 'oops [redacted]', 'the reason holds its last lines');
    await waitFor('its container removed', () => containerGone(queued.id), (gone) => gone, 10_000);

    const ok = await start(s, svc.id, { command: ['sh', '-c', 'echo fine'] });
    t.match(await ended(s, ok.id), { status: 'succeeded', exitCode: 0, reason: null, command: ['sh', '-c', 'echo fine'] }, 'an argv runs as given');
    const listed = (await s.call('GET', `/api/services/${svc.id}/runs`)).body.runs as { id: string }[];
    t.same(listed.map((r) => r.id), [ok.id, queued.id], 'the service’s runs, newest first');
    const page = (await s.call('GET', `/api/services/${svc.id}/runs?limit=1&before=${ok.id}`)).body.runs as { id: string }[];
    t.same(page.map((r) => r.id), [queued.id], 'and the next page');
  });

  await t.test('past its timeout a run is stopped and ends timed_out; a cancel stops it and ends canceled', async (t) => {
    const slow = await start(s, svc.id, { command: 'echo begun; sleep 60', timeoutSeconds: 1 });
    const timedOut = await ended(s, slow.id);
    t.match(timedOut, { status: 'timed_out', exitCode: null, reason: /timeout of 1 s/ });
    t.ok(timedOut.durationMs < 15_000, `stopped soon (${timedOut.durationMs} ms)`);

    const long = await start(s, svc.id, { command: 'echo started; sleep 60' });
    await waitFor('its first line', () => linesOf(s, long.id), (lines) => lines.some((l) => l.line === 'started'));
    const canceled = await s.call('POST', `/api/job-runs/${long.id}/cancel`);
    t.equal(canceled.status, 200);
    const run = await ended(s, long.id);
    t.match(run, { status: 'canceled', exitCode: null, reason: /canceled by/ });
    t.ok(run.durationMs < 20_000, 'stopped at once');
    t.match(await s.call('POST', `/api/job-runs/${long.id}/cancel`), { status: 409, body: { error: { code: 'conflict' } } }, 'a run that has ended cannot be canceled');
    await waitFor('its container removed', () => containerGone(long.id), (gone) => gone, 10_000);
  });

  await t.test('keys: a read key reads but cannot run, another project’s key finds nothing', async (t) => {
    const run = (await s.call('GET', `/api/services/${svc.id}/runs`)).body.runs[0];
    const reader = await createKey(s, 'read', [p.id]);
    t.equal((await s.call('POST', `/api/services/${svc.id}/runs`, { key: reader.secret, body: { command: 'echo no' } })).status, 403, 'a read key cannot run');
    t.equal((await s.call('POST', `/api/job-runs/${run.id}/cancel`, { key: reader.secret })).status, 403, 'nor cancel');
    t.equal((await s.call('GET', `/api/job-runs/${run.id}`, { key: reader.secret })).status, 200, 'but reads the run');
    t.equal((await s.call('GET', `/api/job-runs/${run.id}/logs`, { key: reader.secret })).status, 200, 'and its log');
    const other = await createProject(s, 'Elsewhere');
    const outsider = await createKey(s, 'write', [other.id]);
    for (const [method, path, body] of [
      ['POST', `/api/services/${svc.id}/runs`, { command: 'echo no' }],
      ['GET', `/api/services/${svc.id}/runs`, undefined],
      ['GET', `/api/job-runs/${run.id}`, undefined],
      ['GET', `/api/job-runs/${run.id}/logs`, undefined],
      ['GET', `/api/job-runs/${run.id}/stream`, undefined],
      ['POST', `/api/job-runs/${run.id}/cancel`, undefined],
    ] as const) {
      const r = await s.call(method, path, { key: outsider.secret, ...(body ? { body } : {}) });
      t.equal(r.status, 404, `another project’s key: ${method} ${path} is 404`);
    }
    t.equal((await s.call('GET', '/api/job-runs/not-an-id')).status, 404);
  });

  await t.test('a restart of Slipway between its start and its end: the run is followed again and ends once', async (t) => {
    const run = await start(s, svc.id, { command: 'echo one; sleep 4; echo two; exit 5' });
    await waitFor('its first line', () => linesOf(s, run.id), (lines) => lines.some((l) => l.line === 'one'));
    await s.stopKeepingData();
    t.ok(!(await containerGone(run.id)), 'its container outlives Slipway');
    s = await startTestServer(env, s.dataDir);
    const after = await ended(s, run.id);
    t.match(after, { status: 'failed', exitCode: 5 }, 'its own exit code, read after the restart');
    const out = (await linesOf(s, run.id)).filter((l) => l.stream !== 'system').map((l) => l.line);
    t.same(out, ['one', 'two'], 'each line once: it ran once');
    await waitFor('its container removed', () => containerGone(run.id), (gone) => gone, 10_000);
  });

  await t.test('a stopped service runs nothing', async (t) => {
    t.equal((await s.call('POST', `/api/services/${svc.id}/stop`)).status, 200);
    const r = await s.call('POST', `/api/services/${svc.id}/runs`, { body: { command: 'echo hi' } });
    t.match(r, { status: 409, body: { error: { code: 'conflict', message: /stopped/ } } });
  });
});
