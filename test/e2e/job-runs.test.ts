import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { requestJobRun } from '../../commands/job-run/handlers.js';
import { findJobRun } from '../../projections/job-run-queries.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { cliArgs, root } from '../helpers/cli-process.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { createKey, createProject, createService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { startReceiver } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
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
/** `slipway` as a user runs it, against this server; never spawnSync: the server answers in this very process. */
function slipway(s: TestServer, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key, SLIPWAY_DATA_DIR: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const containerGone = async (id: string) => docker.getContainer(`slipway-run-${id}`).inspect().then(() => false, () => true);

t.test('one-off commands: output, exit code, stream, timeout, cancel, scope, redaction, a restart in between', { skip: await requireDocker() }, async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { env } = await deployEnv({ SLIPWAY_PROXY: 'off', SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_JOB_RUN_CONCURRENCY: '2' });
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

  await t.test('the CLI streams the output and exits with the command’s exit code', async (t) => {
    const failing = await slipway(s, 'run', `${p.slug}/web`, '--', 'echo to-stdout; echo to-stderr >&2; exit 7');
    t.equal(failing.status, 7, `the command's exit code (${failing.stderr})`);
    t.match(failing.stdout, /^to-stdout$/m, 'its stdout on stdout');
    t.notMatch(failing.stdout, 'to-stderr');
    t.match(failing.stderr, /^to-stderr$/m, 'its stderr on stderr');
    const argv = await slipway(s, 'run', `${p.slug}/web`, '--', 'sh', '-c', 'echo "$GREETING from argv"');
    t.equal(argv.status, 0, argv.stderr);
    t.match(argv.stdout, /^hello from argv$/m, 'several words run as argv');
    const timedOut = await slipway(s, 'run', `${p.slug}/web`, '--timeout', '1', '--', 'sleep 30');
    t.equal(timedOut.status, 124, 'timed out: 124');
    t.match(timedOut.stderr, /timed out/);
    const listed = await slipway(s, 'runs', `${p.slug}/web`);
    t.equal(listed.status, 0, listed.stderr);
    t.match(listed.stdout, /ID\s+TRIGGER[\s\S]*timed_out[\s\S]*one-off/, 'slipway runs lists them');
  });

  await t.test('a scheduled job’s failed run is told through the notification channels; a one-off command’s is not', async (t) => {
    const channel = await s.call('POST', '/api/notification-channels', { body: { name: 'jobs', type: 'webhook', config: { url: `${receiver.url}/jobs` }, events: ['job.failed'], projectIds: [p.id] } });
    t.equal(channel.status, 200, JSON.stringify(channel.body));
    const oneOff = await start(s, svc.id, { command: 'exit 9' });
    t.match(await ended(s, oneOff.id), { status: 'failed', exitCode: 9 });
    const runId = randomUUID();
    const jobId = randomUUID();
    const cmd = s.app.commandContext('test');
    const asked = { serviceId: svc.id, projectId: p.id, jobId, jobName: 'nightly-report', command: ['sh', '-c', 'echo report broke; exit 4'], timeoutSeconds: 60, trigger: 'manual' as const, dueAt: null, lateMs: null };
    t.match(await requestJobRun(cmd, runId, asked), { created: true });
    t.match(await requestJobRun(cmd, runId, asked), { created: false, position: null }, 'requested twice: recorded once');
    t.match(await ended(s, runId), { status: 'failed', exitCode: 4, jobId, trigger: 'manual' });
    const [hit] = await receiver.waitFor(1, '/jobs', 30_000);
    const body = JSON.parse(hit!.body);
    t.match(body, { event: 'job.failed', service: { id: svc.id }, jobRun: { id: runId, jobId, jobName: 'nightly-report', status: 'failed', exitCode: 4 }, reason: /exited with code 4:\nreport broke/ }, 'the first told is the job’s run, not the one-off before it');
    t.ok(body.apiLinks.log.endsWith(`/api/job-runs/${runId}/logs`), 'its log in apiLinks');
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

  await t.test('at most SLIPWAY_JOB_RUN_CONCURRENCY runs at once: the rest wait queued, then run', async (t) => {
    const runs: Record<string, any>[] = [];
    for (let i = 0; i < 3; i++) runs.push(await start(s, svc.id, { command: `echo run-${i}; sleep 2` }));
    const seen = await waitFor('two running', async () => Promise.all(runs.map((r) => runOf(s, r.id))), (now) => now.filter((r) => r.status === 'running').length === 2);
    t.same(seen.map((r) => r.status).sort(), ['queued', 'running', 'running'], 'two run, the third waits');
    const done = await Promise.all(runs.map((r) => ended(s, r.id)));
    t.same(done.map((r) => r.status), ['succeeded', 'succeeded', 'succeeded'], 'and then runs');
    const third = done.find((r) => r.id === seen.find((x) => x.status === 'queued')!.id)!;
    const firstEnd = Math.min(...done.filter((r) => r.id !== third.id).map((r) => Date.parse(r.finishedAt)));
    t.ok(Date.parse(third.startedAt) >= firstEnd - 50, 'it started once a slot was free');
  });

  await t.test('the read model rebuilt from the log equals the live one', async (t) => {
    const live = await dumpReadModels(s.app.db);
    await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] });
    const rebuilt = await dumpReadModels(s.app.db);
    t.ok(live.rm_job_runs!.length >= 10 && live.rm_job_run_logs!.length >= 10, 'many runs and lines');
    t.same(rebuilt.rm_job_runs, live.rm_job_runs, 'rm_job_runs');
    t.same(rebuilt.rm_job_run_logs, live.rm_job_run_logs, 'rm_job_run_logs');
  });

  await t.test('a stopped service runs nothing; a deleted one’s running run is canceled', async (t) => {
    const long = await start(s, svc.id, { command: 'echo long; sleep 60' });
    await waitFor('its first line', () => linesOf(s, long.id), (lines) => lines.some((l) => l.line === 'long'));
    t.equal((await s.call('POST', `/api/services/${svc.id}/stop`)).status, 200);
    const r = await s.call('POST', `/api/services/${svc.id}/runs`, { body: { command: 'echo hi' } });
    t.match(r, { status: 409, body: { error: { code: 'conflict', message: /stopped/ } } }, 'refused at the request');
    // A job's run requested for it all the same (a schedule does not ask the API): it ends failed, never queued for ever.
    const runId = randomUUID();
    await requestJobRun(s.app.commandContext('test'), runId, { serviceId: svc.id, projectId: p.id, jobId: randomUUID(), jobName: 'nightly', command: ['true'], timeoutSeconds: 60, trigger: 'schedule', dueAt: new Date().toISOString(), lateMs: 0 });
    t.match(await ended(s, runId), { status: 'failed', exitCode: null, reason: 'the service is stopped', startedAt: null }, 'the runner refuses it with the reason');
    t.equal((await runOf(s, long.id)).status, 'running', 'a run already going goes on');

    t.equal((await s.call('DELETE', `/api/services/${svc.id}`)).status, 200);
    const gone = await waitFor('the run ended', () => findJobRun(s.app.db, long.id), (row) => row !== null && !['queued', 'running'].includes(row.status), 30_000);
    t.match(gone, { status: 'canceled', reason: 'the service was deleted' }, 'a deleted service’s running run is canceled');
    t.equal((await s.call('GET', `/api/job-runs/${long.id}`)).status, 404, 'and clients no longer see it');
    t.equal(await findJobRun(s.app.db, runId), null, 'its ended runs left the read model');
    await waitFor('its container removed', () => containerGone(long.id), (g) => g, 20_000);
  });
});
