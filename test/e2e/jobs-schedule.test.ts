import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { createProject, createService, testWebService } from '../helpers/http-resources.js';
import { runsOf, type Run } from '../helpers/jobs.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

const finished = (runs: Run[]) => runs.filter((r) => !['queued', 'running'].includes(r.status));
const MINUTE = 60_000;

// Slow by nature: real minutes, on the server's own scheduler and clock.
t.test('a job every minute runs at its due times, and a restart runs a missed one once, late', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const { env } = await deployEnv();
  let s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Minutely');
  t.teardown(() => removeProjectLeftovers(p.id));
  const web = await createService(s, p.id, testWebService('web'));
  t.equal(outcome((await deploy(s, web.id)).done), 'succeeded');
  const made = await s.call('POST', `/api/services/${web.id}/jobs`, { body: { name: 'tick', schedule: '* * * * *', command: ['sh', '-c', 'echo "tick at $(date -u +%T)"'] } });
  t.equal(made.status, 200);
  const jobId = made.body.job.id;
  const firstDue = new Date(made.body.job.nextRunAt).getTime();

  const [first] = await waitFor('the first due time’s run to end', () => runsOf(s, jobId), (runs) => finished(runs).length >= 1, 2 * MINUTE);
  t.match(first, { trigger: 'schedule', status: 'succeeded', exitCode: 0, dueAt: new Date(firstDue).toISOString() });
  t.ok(first!.durationMs !== null && first!.durationMs < 30_000, `its duration (${first!.durationMs} ms)`);
  t.ok(first!.lateMs !== null && first!.lateMs < 2_000, `requested on time (${first!.lateMs} ms after its due time)`);
  const log = ((await s.call('GET', `/api/job-runs/${first!.id}/logs`)).body.logs as { line: string }[]).map((l) => l.line);
  t.ok(log.some((l) => /^tick at \d\d:\d\d:\d\d$/.test(l)), `its output in its log (${JSON.stringify(log)})`);

  // Down across the next due time.
  const dataDir = s.dataDir;
  await s.stopKeepingData();
  const missedDue = firstDue + MINUTE;
  await new Promise((r) => setTimeout(r, Math.max(0, missedDue + 3_000 - Date.now())));
  s = await startTestServer(env, dataDir);

  const runs = await waitFor('the missed due time’s run to end', () => runsOf(s, jobId), (r) => r.some((x) => x.dueAt === new Date(missedDue).toISOString() && x.status === 'succeeded'), MINUTE);
  const missed = runs.filter((r) => r.dueAt === new Date(missedDue).toISOString());
  t.equal(missed.length, 1, 'the missed due time runs once');
  t.ok(missed[0]!.lateMs! >= 3_000, `and says how late (${missed[0]!.lateMs} ms)`);
  const missedLog = ((await s.call('GET', `/api/job-runs/${missed[0]!.id}/logs`)).body.logs as { line: string }[]).map((l) => l.line);
  t.ok(missedLog.some((l) => /^tick at \d\d:\d\d:\d\d$/.test(l)), 'with its output');
  t.equal(runs.filter((r) => r.dueAt === new Date(firstDue).toISOString()).length, 1, 'the first due time did not run again at the restart');
});
