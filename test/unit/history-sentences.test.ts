import t from 'tap';
import { ALL_EVENT_SCHEMAS } from '../../commands/event-types.js';
import { groupByRequest } from '../../src/dashboard/history-groups.js';
import { historyNames, type HistoryEvent } from '../../src/dashboard/history-names.js';
import { actorWords, historySentence, humanType, toneOfEvent } from '../../src/dashboard/history-sentences.js';

const PROJECT = 'p-1111';
const WEB = 'svc-web';
const DB = 'svc-db';
const DEPLOY = 'dep-1';
const SHA = '3f2a1c9e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a';
const ADA = 'key:k-ada';

type Type = keyof typeof ALL_EVENT_SCHEMAS;
/** An event as the audit log answers it, its data checked against the write side's own schema. */
function event(type: Type, streamId: string, data: Record<string, unknown>, actor = ADA): HistoryEvent {
  ALL_EVENT_SCHEMAS[type].parse(data);
  return { type, streamId, data, actor, actorName: actor === ADA ? 'Ada' : actor === 'key:k-ci' ? 'ci' : null };
}

const releaseConfig = { env: '[encrypted]', startCommand: null, internalPort: 8080, runtimeMode: 'web' };
const history: HistoryEvent[] = [
  event('ReleaseRecorded', `release-${WEB}`, {
    releaseId: 'rel-6', version: 6, deploymentId: 'dep-0', imageId: 'sha256:ab', imageRef: 'web:6', commitSha: SHA, commitMessage: 'fix', buildMethod: 'dockerfile', config: releaseConfig,
  }, 'system:deployer'),
  event('ServiceCreated', `service-${DB}`, {
    projectId: PROJECT, name: 'orders-db', slug: 'orders-db', kind: 'database', repoFullName: 'database:postgres', repoUrl: 'database', hostPort: 0, databaseEngine: 'postgres',
    databasePublicEnabled: false, databasePublicHostname: null, postgresLogicalReplicationEnabled: false, branch: 'main', rootDir: null, gitToken: null, installCommand: null,
    buildCommand: null, startCommand: null, buildMethod: 'auto', dockerfilePath: null, runtimeMode: 'worker', internalPort: 5432, dockerImage: null,
  }),
  event('DeploymentQueued', `deployment-${DEPLOY}`, { serviceId: WEB, projectId: PROJECT, trigger: 'manual', kind: 'deploy', releaseId: null, config: 'current', commitSha: SHA, source: 'upstream' }, 'key:k-ci'),
  event('BackupRequested', 'backup-b-1', {
    serviceId: DB, projectId: PROJECT, serviceSlug: 'orders-db', engine: 'postgres', format: 'custom', storage: 'disk', trigger: 'manual', scheduledFor: null, localPath: 'backups/b-1', remoteKey: null,
  }),
  event('NotificationChannelCreated', 'notificationchannel-ch-1', { type: 'slack', name: 'ops', events: ['deployment.failed'], projectIds: null, config: {}, secrets: '[encrypted]', secretFields: ['webhookUrl'] }),
];
const names = historyNames([{ id: PROJECT, name: 'Shop', services: [{ id: WEB, name: 'web' }] }], history);
const say = (e: HistoryEvent) => historySentence(e, names);

t.test('who: the key by its name, the CLI, Slipway', async (t) => {
  t.equal(actorWords(ADA, 'Ada'), 'Ada');
  t.equal(actorWords('key:78cf1234-aaaa', null), 'the key 78cf1234', 'a key whose name is not known, by its id cut short');
  t.equal(actorWords('cli', null), 'The CLI');
  t.equal(actorWords('system', null), 'Slipway');
  t.equal(actorWords('system:deployer', null), 'Slipway');
});

t.test('deployments and their outcomes, named by their service', async (t) => {
  t.equal(say(history[2]!), 'ci deployed web (commit 3f2a1c9)');
  t.equal(say(event('DeploymentQueued', 'deployment-dep-2', { serviceId: WEB, projectId: PROJECT, trigger: 'manual', kind: 'rollback', releaseId: 'rel-6', config: 'release', commitSha: null, source: 'upstream' })), 'Ada rolled back web to v6', 'the version from the release recorded');
  t.equal(say(event('DeploymentQueued', 'deployment-dep-3', { serviceId: WEB, projectId: PROJECT, trigger: 'manual', kind: 'rollback', releaseId: 'rel-unknown', config: 'release', commitSha: null, source: 'upstream' })), 'Ada rolled back web to an earlier release');
  t.equal(say(event('DeploymentQueued', 'deployment-dep-4', { serviceId: WEB, projectId: PROJECT, trigger: 'webhook', kind: 'deploy', releaseId: null, config: 'current', commitSha: null, source: 'upstream' }, 'system:webhook')), 'Slipway deployed web after a push to its repository');
  t.equal(say(event('DeploymentQueued', 'deployment-dep-5', { serviceId: WEB, projectId: PROJECT, trigger: 'manual', kind: 'restart', releaseId: 'rel-6', config: 'current', commitSha: null, source: 'upstream' }, 'cli')), 'The CLI restarted web');
  t.equal(say(event('DeploymentFailed', `deployment-${DEPLOY}`, { reason: 'build failed' }, 'system:deployer')), 'The deployment of web failed: build failed', 'a later event of the deployment finds its service');
  t.equal(say(event('DeploymentSucceeded', `deployment-${DEPLOY}`, {}, 'system:deployer')), 'The deployment of web succeeded');
  t.equal(say(event('DeploymentRolledBack', `deployment-${DEPLOY}`, { reason: 'it exited', rollbackDeploymentId: 'dep-9' }, 'system:deployer')), 'Slipway rolled back web: it exited');
  t.equal(say(event('DeploymentLogAppended', `deploymentlog-${DEPLOY}`, { first: 1, lines: [{ line: 'npm ci', stream: 'stdout', at: '2026-11-28T10:00:00Z' }] }, 'system:deployer')), 'web’s deployment wrote a log line');
  t.equal(say(history[0]!), 'Slipway recorded release v6 of web (commit 3f2a1c9)');
  t.equal(toneOfEvent('DeploymentFailed'), 'danger');
  t.equal(toneOfEvent('DeploymentSucceeded'), 'success');
  t.equal(toneOfEvent('EnvVarSet'), 'neutral');
});

t.test('services: health, variables, domains, settings', async (t) => {
  t.equal(say(event('ServiceBecameUnhealthy', `service-${WEB}`, { deploymentId: DEPLOY, detail: 'HTTP 500 from /health', probe: { ok: false, detail: 'HTTP 500' }, restarts: 0, crashed: false }, 'system:health')), 'Slipway marked web unhealthy: HTTP 500 from /health');
  t.equal(say(event('ServiceRecovered', `service-${WEB}`, { deploymentId: DEPLOY, detail: 'ok', probe: null, restarts: 1 }, 'system:health')), 'Slipway marked web healthy again');
  t.equal(say(event('DomainAdded', `service-${WEB}`, { domainId: 'd-1', hostname: 'shop.example.com' })), 'Ada added the domain shop.example.com to web');
  t.equal(say(event('DomainChanged', `service-${WEB}`, { domainId: 'd-1', hostname: 'www.example.com', previousHostname: 'shop.example.com' })), 'Ada changed web’s domain shop.example.com to www.example.com');
  t.equal(say(event('EnvVarSet', `service-${WEB}`, { envId: 'v-1', key: 'DATABASE_URL', value: '[encrypted]' })), 'Ada set DATABASE_URL on web');
  t.equal(say(event('EnvVarDeleted', `service-${WEB}`, { envId: 'v-1', key: 'DATABASE_URL' })), 'Ada removed DATABASE_URL from web');
  t.equal(say(event('ServiceUpdated', `service-${WEB}`, { changes: { internalPort: 3000, startCommand: 'npm start' } })), 'Ada changed internal port and start command of web');
  t.equal(say(event('ServiceStopped', `service-${WEB}`, { deploymentId: DEPLOY, containerName: null })), 'Ada stopped web');
  t.equal(say(history[1]!), 'Ada created the service orders-db in Shop', 'a service not in the projects store is named by its creation');
  t.equal(say(event('ProjectCreated', `project-${PROJECT}`, { name: 'Shop', slug: 'shop', description: '' })), 'Ada created the project Shop');
});

t.test('backups, imports, keys, settings, channels, cluster', async (t) => {
  t.equal(say(history[3]!), 'Ada started a backup of orders-db');
  t.equal(say(event('BackupSucceeded', 'backup-b-1', { sizeBytes: 12_500_000, checksum: 'sha256:1' }, 'system:backups')), 'The backup of orders-db succeeded (12.5 MB)', 'a backup’s outcome finds its service through its request');
  t.equal(say(event('BackupRestored', 'backup-b-1', { serviceId: DB, projectId: PROJECT })), 'A backup was restored into orders-db');
  t.equal(say(event('ImportRequested', 'import-i-1', { serviceId: DB, projectId: PROJECT, engine: 'postgres', source: 'postgres-url', sourceLabel: 'postgres://old.example.com/shop', sourceUrl: '[encrypted]' })), 'Ada started importing postgres://old.example.com/shop into orders-db');
  t.equal(say(event('ApiKeyCreated', 'apikey-k-ci', { name: 'ci', access: 'read', scope: { kind: 'projects', projectIds: ['a', 'b'] }, secretHash: '[redacted]', prefix: 'slw_ab', ownerUserId: null })), 'Ada created the key ci (read, 2 projects)');
  t.equal(say(event('ApiKeyCreated', 'apikey-k-all', { name: 'admin', access: 'write', scope: { kind: 'all' }, secretHash: '[redacted]', prefix: 'slw_cd', ownerUserId: null })), 'Ada created the key admin (write, every project)');
  t.equal(say(event('ApiKeyRevoked', 'apikey-k-ci', {})), 'Ada revoked the key ci', 'the revoked key named by the events it made');
  t.equal(say(event('ApiKeyRevoked', 'apikey-k-old', {})), 'Ada revoked an API key', 'a key not named anywhere');
  const listed = historyNames([], [], [{ id: 'k-old', name: 'deploy-bot' }]);
  t.equal(historySentence(event('ApiKeyRevoked', 'apikey-k-old', {}), listed), 'Ada revoked the key deploy-bot', 'or named by the keys listed');
  t.equal(say(event('GeneralSettingsChanged', 'settings-installation', { sessionIdleMinutes: 30, rootDomain: 'example.com' })), 'Ada changed the settings: session idle minutes, root domain');
  t.equal(say(event('NotificationChannelDeleted', 'notificationchannel-ch-1', {})), 'Ada deleted the notification channel ops');
  t.equal(say(event('ClusterNodeChanged', 'cluster-installation', { nodeId: 'n1abc', availability: 'drain', labels: {} })), 'Ada drained node n1abc');
  t.equal(say(event('Reserved', 'reservation-service-name-x', { kind: 'service-name', value: `${PROJECT}:web`, owner: WEB })), 'Ada reserved the service name web');
  t.equal(say(event('Released', 'reservation-hostname-x', { kind: 'hostname', value: 'shop.example.com', owner: WEB })), 'Ada released the hostname shop.example.com');
  t.equal(say(event('ClusterNodeWentDown', 'cluster-installation', { nodeId: 'n1abc', hostname: 'worker-2', address: '10.0.0.2', state: 'down' }, 'system:cluster')), 'The node worker-2 went down');
});

t.test('an event it has no words for reads as its type; an unknown service as "a service"', async (t) => {
  t.equal(say({ type: 'ServiceHibernated', streamId: `service-${WEB}`, data: {}, actor: 'system', actorName: null }), 'Service hibernated');
  t.equal(humanType('DomainCertificateChanged'), 'Domain certificate changed');
  t.equal(say(event('EnvVarSet', 'service-gone', { envId: 'v-2', key: 'A', value: '[encrypted]' })), 'Ada set A on a service');
});

t.test('grouped by request: consecutive events of one request are one entry, in the order they happened', async (t) => {
  const e = (type: string, correlationId: string) => ({ type, correlationId });
  const groups = groupByRequest([e('EnvVarSet', 'r3'), e('ServiceCreated', 'r2'), e('ProjectServiceAttached', 'r2'), e('Reserved', 'r2'), e('DeploymentQueued', 'r1'), e('EnvVarSet', 'r3')]);
  t.same(groups.map((g) => g.events.map((x) => x.type)), [['EnvVarSet'], ['Reserved', 'ProjectServiceAttached', 'ServiceCreated'], ['DeploymentQueued'], ['EnvVarSet']], 'only neighbours are grouped');
  t.equal(groups[1]!.headline.type, 'ServiceCreated', 'an echo of the request (a name held, the project told) is not its headline');
});

t.test('job runs and one-off commands, named by their service', async (t) => {
  const requested = event('JobRunRequested', 'jobrun-r-1', { serviceId: WEB, projectId: PROJECT, jobId: null, jobName: null, command: ['sh', '-c', 'npm run migrate'], timeoutSeconds: 60, trigger: 'one-off', dueAt: null, lateMs: null });
  const scheduled = event('JobRunRequested', 'jobrun-r-2', { serviceId: WEB, projectId: PROJECT, jobId: 'j-1', jobName: 'nightly', command: ['report'], timeoutSeconds: 60, trigger: 'schedule', dueAt: '2026-11-29T03:00:00Z', lateMs: 0 }, 'system:jobs');
  const runNames = historyNames([{ id: PROJECT, name: 'Shop', services: [{ id: WEB, name: 'web' }] }], [requested, scheduled]);
  const sayRun = (e: HistoryEvent) => historySentence(e, runNames);
  t.equal(sayRun(requested), 'Ada ran a command in web');
  t.equal(sayRun(scheduled), 'Slipway ran the job nightly of web as scheduled');
  t.equal(sayRun(event('JobRunFinished', 'jobrun-r-1', { status: 'failed', exitCode: 3, durationMs: 10, reason: 'exited with code 3' }, 'system:job-runner')), 'A run in web failed with exit code 3', 'a later event of the run finds its service');
  t.equal(sayRun(event('JobRunFinished', 'jobrun-r-2', { status: 'timed_out', exitCode: null, durationMs: 10, reason: 'stopped' }, 'system:job-runner')), 'A run in web timed out');
  t.equal(sayRun(event('JobRunLogAppended', 'jobrunlog-r-1', { first: 1, lines: [{ line: 'hi', stream: 'stdout', at: '2026-11-29T03:00:00Z' }] }, 'system:job-runner')), 'A run in web wrote a log line', 'its log too');
  t.equal(sayRun(event('JobRunSkipped', 'jobrun-r-3', { serviceId: WEB, projectId: PROJECT, jobId: 'j-1', jobName: 'nightly', dueAt: '2026-11-29T04:00:00Z', reason: 'the previous run is still going' }, 'system:jobs')), 'A scheduled run of the job nightly of web was skipped: the previous run is still going');
});
