import { createKey, createProject, createService } from './api-suite.js';
import { versionedApp } from './apps.js';
import { deploy, logLines, waitForDeployment } from './deploy.js';
import { TEST_IMAGES } from './docker.js';
import type { GitServer } from './git-server.js';
import { waitFor } from './net.js';
import { randomUUID } from 'node:crypto';
import { skipJobRun } from '../../commands/job-run/handlers.js';
import { recordCertificateChange, recordHealth } from '../../commands/service/handlers.js';
import { startFakeOpenAi } from './fake-ai-servers.js';
import { startFakeCloudflare } from './fake-cloudflare.js';
import { startReceiver } from './notification-receivers.js';
import { destinationOf } from './outbound.js';
import { startS3Server } from './s3-server.js';
import type { TestServer } from './test-server.js';
import { deliver, githubPing } from './webhooks.js';
import { runPeopleHistory } from './people-history.js';

async function callOk(s: TestServer, method: string, path: string, body?: unknown) {
  const r = await s.call(method, path, body === undefined ? {} : { body });
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A long, varied history: every kind of event, with updates, deletes and transfers interleaved. */
export async function runMixedScenario(s: TestServer, rounds = 6) {
  const must = (method: string, path: string, body?: unknown) => callOk(s, method, path, body);
  const projects = [];
  const deployments: [string, string][] = [];
  for (let round = 0; round < rounds; round++) {
    const p = await createProject(s, `Mixed ${round}`);
    projects.push(p);
    const db = await createService(s, p.id, { name: `db${round}`, repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: round % 2 === 0, env: [] });
    const web = await createService(s, p.id, {
      name: `web${round}`,
      repoFullName: 'acme/web',
      branch: 'main',
      gitToken: `token-${round}`,
      env: [{ key: 'DATABASE_URL', value: `\${db${round}.DATABASE_URL}` }],
    });
    const img = await createService(s, p.id, { name: `img${round}`, repoUrl: 'docker-image', dockerImage: 'nginx:1.27', branch: 'main', runtimeMode: 'web', internalPort: 80, env: [] });
    const worker = await createService(s, p.id, { name: `jobs${round}`, repoUrl: 'https://git.example.com/a/b.git', branch: 'main', runtimeMode: 'worker' });
    for (let i = 0; i < 5; i++) await must('POST', `/api/services/${web.id}/env`, { key: `K${i}`, value: `value-${round}-${i}` });
    await must('POST', `/api/services/${web.id}/env`, { key: 'K1', value: 'changed' });
    const env = (await must('GET', `/api/services/${web.id}/overview`)).env;
    await must('DELETE', `/api/services/${web.id}/env/${env.find((e: { key: string }) => e.key === 'K2').id}`);
    await must('POST', `/api/services/${web.id}/domains`, { hostname: `web${round}.example.com` });
    await must('POST', `/api/services/${img.id}/domains`, { hostname: `img${round}.example.com` });
    await must('POST', `/api/services/${img.id}/domains`, { hostname: `old-img${round}.example.com` });
    const domains = (await must('GET', `/api/services/${img.id}/overview`)).domains as { id: string; hostname: string }[];
    await must('PATCH', `/api/services/${img.id}/domains/${domains.find((d) => d.hostname === `img${round}.example.com`)!.id}`, { hostname: `image${round}.example.com` });
    await must('DELETE', `/api/services/${img.id}/domains/${domains.find((d) => d.hostname === `old-img${round}.example.com`)!.id}`);
    await must('PATCH', `/api/services/${web.id}`, { buildCommand: 'npm run build', internalPort: 4000 + round, gitToken: `rotated-${round}`, resources: { memory: `${256 + round}m`, cpus: null } });
    await must('PATCH', `/api/projects/${p.id}`, { description: `round ${round}` });
    if (round === 0) {
      // Scheduled jobs: one created and changed, one deleted.
      const job = (await must('POST', `/api/services/${worker.id}/jobs`, { name: 'nightly', schedule: '0 3 * * *', command: 'echo nightly' })).job as { id: string };
      await must('PATCH', `/api/jobs/${job.id}`, { schedule: '30 3 * * *', timezone: 'Europe/Berlin' });
      const gone = (await must('POST', `/api/services/${worker.id}/jobs`, { name: 'once', schedule: '@yearly', command: ['true'] })).job as { id: string };
      await must('DELETE', `/api/jobs/${gone.id}`);
      await must('PUT', `/api/services/${web.id}/auto-deploy`, { enabled: true, provider: 'github' });
      const { secret } = (await must('POST', `/api/services/${web.id}/auto-deploy/rotate-secret`)).autoDeploy;
      await deliver(s.url, `/api/hooks/${web.id}/github`, githubPing(secret));
    }
    const deployment = (await must('POST', `/api/services/${img.id}/deployments`)).deployment;
    deployments.push([img.id, deployment.id]);
    if (round > 0) await must('POST', `/api/services/${worker.id}/transfer`, { targetProjectId: projects[round - 1]!.id });
    if (round % 3 === 2) await must('DELETE', `/api/services/${db.id}`);
    if (round % 2 === 1) {
      const k = await createKey(s, 'read', [p.id]);
      await must('DELETE', `/api/keys/${k.key.id}`);
    }
  }
  // Every deployment ends (no registry is reachable: each pull fails at once) before the project goes.
  for (const [serviceId, id] of deployments) await waitForDeployment(s, serviceId, id);
  // Members of the project deleted next, and of one that stays.
  await runPeopleHistory(s, [projects[1]!.id, projects[0]!.id]);
  await must('DELETE', `/api/projects/${projects[1]!.id}`);
  return projects;
}

/** The outside services the history talks to: a DNS provider and an AI provider, both local. */
export async function startHistoryProviders() {
  const cloudflare = await startFakeCloudflare(['history.test']);
  const ai = await startFakeOpenAi();
  // Notifications: `/flaky` fails its first request (an attempt, then a delivery), `/gone` answers 410 (abandoned).
  const receiver = await startReceiver(({ path, index }) => (path === '/gone' ? 410 : index === 0 ? 503 : 200));
  return {
    cloudflare,
    ai,
    receiver,
    // The AI provider is connected through the API: the installation allows it (the Cloudflare URL is allowed as configured).
    env: {
      SLIPWAY_CLOUDFLARE_API_URL: cloudflare.apiUrl,
      SLIPWAY_ALLOW_DESTINATIONS: [ai.origin, receiver.url].map(destinationOf).join(','),
      SLIPWAY_NOTIFICATION_RETRY: '0.2',
    },
    close: () => Promise.all([cloudflare.close(), ai.close(), receiver.close()]),
  };
}
export type HistoryProviders = Awaited<ReturnType<typeof startHistoryProviders>>;

/**
 * Deployments on the real engine (the server runs one at a time: `SLIPWAY_DEPLOY_CONCURRENCY=1`): they
 * succeed, fail, are aborted and canceled (superseded); a deployed service is redeployed, then deleted.
 */
export async function runDeploymentHistory(s: TestServer, git: GitServer, providers: HistoryProviders) {
  git.push('acme/app', versionedApp('v1'));
  git.push('acme/broken', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN exit 3\n` });
  git.push('acme/slow', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo slow-build-running && sleep 300\n` });
  const p = await createProject(s, 'Deploys');
  const source = (name: string, repo: string) => createService(s, p.id, { name, repoFullName: repo, branch: 'main', internalPort: 8080 });
  const app = await source('app', 'acme/app');
  const broken = await source('broken', 'acme/broken');
  const slow = await source('slow', 'acme/slow');
  const web = await createService(s, p.id, { name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8000 });
  const expect = async (serviceId: string, status: string) => {
    const { done } = await deploy(s, serviceId);
    if (done.status !== status) throw new Error(`expected a ${status} deployment, got ${JSON.stringify(done)}`);
  };

  const must = (method: string, path: string, body?: unknown) => callOk(s, method, path, body);
  // Notification channels (created, changed), told of the failed deployment below.
  const channel = (name: string, path: string) =>
    must('POST', '/api/notification-channels', { name, type: 'webhook', config: { url: `${providers.receiver.url}${path}` }, events: ['deployment.failed'] }).then((b) => b.channel as { id: string });
  const flaky = await channel('flaky', '/flaky');
  const gone = await channel('gone', '/gone');
  await must('PATCH', `/api/notification-channels/${gone.id}`, { name: 'gone for good' });

  await expect(app.id, 'succeeded');
  // Runs of the released app: one to its end (its output), one canceled while it runs, and a skipped due time.
  const runEnded = (id: string) => waitFor(`run ${id} ended`, () => must('GET', `/api/job-runs/${id}`), (b) => !['queued', 'running'].includes(b.run.status as string), 60_000);
  await runEnded((await must('POST', `/api/services/${app.id}/runs`, { command: 'echo ran once' })).run.id as string);
  const sleeper = (await must('POST', `/api/services/${app.id}/runs`, { command: ['sh', '-c', 'echo asleep; sleep 60'] })).run.id as string;
  await waitFor('the run to write', () => must('GET', `/api/job-runs/${sleeper}/logs`), (b) => (b.logs as { line: string }[]).some((l) => l.line === 'asleep'), 60_000);
  await must('POST', `/api/job-runs/${sleeper}/cancel`);
  await runEnded(sleeper);
  await skipJobRun(s.app.commandContext('test'), randomUUID(), { serviceId: app.id, projectId: p.id, jobId: randomUUID(), jobName: 'nightly', dueAt: new Date().toISOString(), reason: 'the previous run is still going' });
  const { done: failedRun } = await deploy(s, broken.id);
  if (failedRun.status !== 'failed') throw new Error(`expected a failed deployment, got ${JSON.stringify(failedRun)}`);
  const ended = (channelId: string, status: string) =>
    waitFor(`a ${status} notification`, () => must('GET', `/api/notification-channels/${channelId}/deliveries`), (b) => (b.deliveries as { status: string }[]).some((d) => d.status === status), 30_000);
  await Promise.all([ended(flaky.id, 'delivered'), ended(gone.id, 'abandoned')]);
  await must('DELETE', `/api/notification-channels/${flaky.id}`);
  // Settings, providers connected and disconnected, an explanation, a DNS record and a certificate report.
  await must('PATCH', '/api/settings', { rootDomain: 'history.test', httpsEnabled: false, defaultResources: { cpus: '1', pids: 4000 } });
  await must('POST', `/api/deployments/${failedRun.id}/explain-failure`, { providerId: 'builtin', model: '' });
  await must('PUT', '/api/settings/ai-providers/openai', { baseUrl: `${providers.ai.origin}/v1`, apiKey: 'sk-history' });
  await must('DELETE', '/api/settings/ai-providers/openai');
  await must('PUT', '/api/settings/dns-providers/cloudflare', { apiToken: providers.cloudflare.token });
  await must('POST', `/api/services/${app.id}/domains`, { hostname: 'app.history.test' });
  const domain = (await must('GET', `/api/services/${app.id}/overview`)).domains[0] as { id: string; hostname: string };
  await must('POST', `/api/services/${app.id}/domains/${domain.id}/dns-records`, { providerId: 'cloudflare' });
  await must('DELETE', '/api/settings/dns-providers/cloudflare');
  await recordCertificateChange(s.app.commandContext('test'), app.id, domain.id, domain.hostname, { status: 'failed', reason: 'no route to the host', notAfter: null, issuer: null });
  // A crash and a recovery as the health monitor records them (directly: the monitor's timing is not waited on).
  const appDeployments = (await must('GET', `/api/services/${app.id}/overview`)).deployments as { id: string; status: string }[];
  const current = appDeployments.find((d) => d.status === 'succeeded')!.id;
  await recordHealth(s.app.commandContext('test'), app.id, { deploymentId: current, running: false, exitCode: 137, restarts: 1, probe: null, failing: false });
  await recordHealth(s.app.commandContext('test'), app.id, { deploymentId: current, running: true, exitCode: null, restarts: 1, probe: { ok: true, detail: 'HTTP 200 from /' }, failing: false });

  const running = (await s.call('POST', `/api/services/${slow.id}/deployments`)).body.deployment.id as string;
  await waitFor('the slow build to run', () => logLines(s, running), (lines) => lines.some((l) => l.includes('slow-build-running')), 60_000);
  const waiting: string[] = [];
  for (let i = 0; i < 3; i++) waiting.push((await s.call('POST', `/api/services/${web.id}/deployments`)).body.deployment.id);
  await s.call('POST', `/api/deployments/${running}/abort`);
  const outcomes = [await waitForDeployment(s, slow.id, running), ...(await Promise.all(waiting.map((id) => waitForDeployment(s, web.id, id))))];
  const statuses = outcomes.map((d) => `${d.status}${/^superseded/.test(d.reason ?? '') ? ' (superseded)' : ''}`);
  if (statuses.join() !== 'aborted,canceled (superseded),canceled (superseded),succeeded') throw new Error(`unexpected outcomes: ${statuses.join()}`);
  // The image service stopped, then moved to another image (not deployed): ServiceStopped, a dockerImage change.
  await must('POST', `/api/services/${web.id}/stop`);
  await must('PATCH', `/api/services/${web.id}`, { dockerImage: 'slipway/test-web:moved' });

  // A Postgres service (its CA and certificate), run through SQL and row edits (their audit events).
  const db = await createService(s, p.id, { name: 'pg', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
  await expect(db.id, 'succeeded');
  const database = (method: string, path: string, body: unknown) =>
    s.call(method, `/api/services/${db.id}/database/${path}`, { body }).then((r) => {
      if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    });
  await database('POST', 'query', { sql: 'create table notes (id serial primary key, body text)' });
  await database('POST', 'rows', { table: 'public.notes', values: { body: 'one' } });
  await database('PATCH', 'rows', { table: 'public.notes', primaryKey: { id: 1 }, values: { body: 'uno' } });
  await database('DELETE', 'rows', { table: 'public.notes', primaryKey: { id: 1 } });
  // Its backups (one restored, one deleted), backup settings, and an import that fails.
  const finished = async (list: 'backups' | 'imports', id: string) => {
    await waitFor(`${list} ${id} to end`, () => s.call('GET', `/api/services/${db.id}/database/${list}`), (r) => (r.body[list] as { id: string; status: string }[]).some((x) => x.id === id && x.status !== 'running'), 60_000);
  };
  const backupOf = async (storage = 'disk') => {
    const id = (await s.call('POST', `/api/services/${db.id}/database/backups`, { body: { storage } })).body.backup.id as string;
    await finished('backups', id);
    return id;
  };
  const kept = await backupOf();
  await database('POST', `backups/${kept}/restore`, undefined);
  // A view on the table makes pg_restore --clean fail: a failed restore, on record.
  await database('POST', 'query', { sql: 'create view notes_view as select * from notes' });
  const refused = await s.call('POST', `/api/services/${db.id}/database/backups/${kept}/restore`);
  if (refused.status !== 422) throw new Error(`a restore over a dependent view: ${refused.status} ${JSON.stringify(refused.body)}`);
  await database('DELETE', `backups/${await backupOf()}`, undefined);
  await database('PUT', 'backups/settings', { weeklyEnabled: false });
  await finished('imports', (await s.call('POST', `/api/services/${db.id}/database/import/postgres-url`, { body: { sourceUrl: 'postgresql://u:secret@nowhere.invalid/x' } })).body.result.id);
  // Remote storage connected, used, disconnected; then a remote backup fails for want of it.
  const s3 = await startS3Server();
  try {
    // An operator allows the storage on this machine (the setting replaces the environment's list), as the history shows.
    await must('PATCH', '/api/settings', { allowedDestinations: [git.baseUrl, providers.ai.origin, providers.cloudflare.apiUrl, s3.endpoint].map(destinationOf) });
    const connected = await s.call('PUT', '/api/settings/remote-storage', {
      body: { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: 'history-secret', forcePathStyle: true },
    });
    if (connected.status !== 200) throw new Error(`remote storage: ${connected.status} ${JSON.stringify(connected.body)}`);
    await backupOf('disk+remote');
    await s.call('DELETE', '/api/settings/remote-storage');
  } finally {
    await s3.stop();
  }
  await backupOf('remote');
  // A redis service importing its own keys: an import that succeeds.
  const cache = await createService(s, p.id, { name: 'cache', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 6379, databasePublicEnabled: false, env: [] });
  await s.call('POST', `/api/services/${cache.id}/env`, { body: { key: 'REDIS_PASSWORD', value: 'history-redis' } });
  await expect(cache.id, 'succeeded');
  const imported = (await s.call('POST', `/api/services/${cache.id}/database/import/redis-url`, { body: { sourceUrl: 'redis://default:history-redis@cache:6379' } })).body.result.id as string;
  await waitFor('the redis import', () => s.call('GET', `/api/services/${cache.id}/database/imports`), (r) => (r.body.imports as { id: string; status: string }[]).some((x) => x.id === imported && x.status === 'succeeded'), 60_000);

  git.push('acme/app', versionedApp('v2'));
  await expect(app.id, 'succeeded');
  // Releases: a rollback to v1, then only one release kept (v2's image pruned) and a restart.
  const release = async (path: string) => {
    const queued = (await must('POST', `/api/services/${app.id}/${path}`, {})).deployment as { id: string };
    const done = await waitForDeployment(s, app.id, queued.id);
    if (done.status !== 'succeeded') throw new Error(`${path}: ${JSON.stringify(done)}`);
  };
  await release('rollback');
  await must('PATCH', `/api/services/${app.id}`, { releasesKept: 1 });
  await release('restart');
  // Releases that die after going live: one rolled back on its own, one (autoRollback off, nothing before it) only recorded.
  const dying = (version: string) => versionedApp(version, { command: ['sh', '-c', 'python3 -u server.py & sleep 3; echo dying; exit 3'] });
  git.push('acme/crashy', dying('c1'));
  const crashy = await source('crashy', 'acme/crashy');
  await must('PATCH', `/api/services/${crashy.id}`, { autoRollback: false });
  await expect(crashy.id, 'succeeded');
  git.push('acme/app', dying('v3'));
  await expect(app.id, 'succeeded');
  const settled = (list: Record<string, unknown>[]) =>
    list.some((d) => d.status === 'rolled_back') && list.some((d) => d.trigger === 'auto' && d.status === 'succeeded');
  await waitFor('the automatic rollback', async () => (await must('GET', `/api/services/${app.id}/deployments`)).deployments as Record<string, unknown>[], settled, 60_000);
  await waitFor('the dying release on record', async () => (await must('GET', `/api/services/${crashy.id}/deployments`)).deployments as Record<string, unknown>[], (list) => list.some((d) => /exited/.test(String(d.reason))), 60_000);
  const deleted = await s.call('DELETE', `/api/services/${app.id}`);
  if (deleted.status !== 200) throw new Error(`delete: ${deleted.status}`);
  return p;
}
