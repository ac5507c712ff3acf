import t, { type Test } from 'tap';
import type { components } from '../../src/shared/api-types.js';
import { clientFor } from '../../src/cli/api/db-connect.js';
import { releaseTimelineOf } from '../../src/cli/api/release-timeline.js';
import { serviceBody } from '../../src/cli/api/service-body.js';
import { settingsPatch } from '../../src/cli/api/settings.js';
import { UsageError } from '../../src/cli/api/usage-error.js';

/** Bad input is a usage error (exit 2), not a failure of the server. */
function usage(t: Test, work: () => unknown) {
  try {
    work();
    t.fail('no error');
  } catch (error) {
    t.ok(error instanceof UsageError, String(error));
  }
}

type Deployment = components['schemas']['Deployment'];
type Release = components['schemas']['Release'];

t.test('settings set: JSON when it parses, else the text; KEY= is null', async (t) => {
  t.same(settingsPatch(['httpsEnabled=false', 'defaultResources={"memory":"512m"}', 'allowedDestinations=["10.0.0.0/8"]', 'packNodeImage=slipway/runtime-node:bookworm', 'rootDomain=', 'x=3', 'url=http://a=b']), {
    httpsEnabled: false,
    defaultResources: { memory: '512m' },
    allowedDestinations: ['10.0.0.0/8'],
    packNodeImage: 'slipway/runtime-node:bookworm',
    rootDomain: null,
    x: 3,
    url: 'http://a=b',
  });
  const lists = new Set(['allowedDestinations']);
  t.same(settingsPatch(['allowedDestinations=127.0.0.1:8499, 10.0.0.0/8'], lists), { allowedDestinations: ['127.0.0.1:8499', '10.0.0.0/8'] }, 'a list setting takes its environment variable’s comma form');
  t.same(settingsPatch(['allowedDestinations=127.0.0.1:8499'], lists), { allowedDestinations: ['127.0.0.1:8499'] }, 'one item is a list of one');
  t.same(settingsPatch(['allowedDestinations=["a"]', 'allowedDestinations='], lists), { allowedDestinations: null }, 'JSON and the default still work');
  usage(t, () => settingsPatch([]));
  usage(t, () => settingsPatch(['=1']));
  usage(t, () => settingsPatch(['noequals']));
});

t.test('services create: the body of each kind', async (t) => {
  t.same(serviceBody('main-db', { engine: 'postgres' }), { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
  t.match(serviceBody('cache', { engine: 'redis', public: true }), { repoFullName: 'database:redis', internalPort: 6379, databasePublicEnabled: true });
  t.match(serviceBody('ch', { engine: 'columnar' }), { internalPort: 8123 });
  t.same(serviceBody('web', { image: 'nginx:1.27', port: '80', mode: 'static' }), { name: 'web', internalPort: 80, runtimeMode: 'static', env: [], repoUrl: 'docker-image', dockerImage: 'nginx:1.27' });
  t.match(serviceBody('web', { image: 'nginx:1.27', replicas: '3' }), { replicas: 3 }, '--replicas for cluster mode');
  t.throws(() => serviceBody('web', { image: 'nginx:1.27', replicas: '0' }), /--replicas 0 is not a number of tasks/);
  t.throws(() => serviceBody('db', { engine: 'postgres', replicas: '2' }), /a database runs one task/);
  t.match(serviceBody('db', { engine: 'postgres', node: 'abc123' }), { nodeId: 'abc123' }, '--node pins a database in cluster mode');
  t.throws(() => serviceBody('web', { image: 'nginx:1.27', node: 'abc123' }), /--node is for databases/);
  t.same(serviceBody('job', { repo: 'acme/job', mode: 'worker', branch: 'dev' }), { name: 'job', runtimeMode: 'worker', branch: 'dev', env: [], repoFullName: 'acme/job' });
  t.match(serviceBody('g', { gitUrl: 'https://example.test/a.git' }), { repoUrl: 'https://example.test/a.git' });
  usage(t, () => serviceBody('x', {}));
  usage(t, () => serviceBody('x', { image: 'a', engine: 'redis' }));
  usage(t, () => serviceBody('x', { image: 'a', port: '70000' }));
  usage(t, () => serviceBody('x', { engine: 'mysql', mode: 'worker' }));
});

t.test('db connect: passwords go through the environment, never the arguments', async (t) => {
  const pg = clientFor({ engine: 'postgres', url: new URL('postgresql://postgres:s%40cret@127.0.0.1:41000/main_db?sslmode=verify-full') });
  t.same(pg.binary, ['psql']);
  t.same(pg.env, { PGPASSWORD: 's@cret' });
  t.same(pg.args, ['postgresql://postgres@127.0.0.1:41000/main_db?sslmode=verify-full']);
  const my = clientFor({ engine: 'mysql', url: new URL('mysql://app:pw@127.0.0.1:41001/shop') });
  t.same(my.args, ['--protocol=TCP', '-h', '127.0.0.1', '-P', '41001', '-u', 'app', 'shop']);
  t.same(my.env, { MYSQL_PWD: 'pw' });
  const redis = clientFor({ engine: 'redis', url: new URL('redis://default:pw@127.0.0.1:41002') });
  t.same(redis.env, { REDISCLI_AUTH: 'pw' });
  t.notOk(redis.args.join(' ').includes('pw'));
  t.notOk(clientFor({ engine: 'mongodb', url: new URL('mongodb://mongo:pw@127.0.0.1:41003') }).args.join(' ').includes('pw'));
  t.throws(() => clientFor({ engine: 'columnar', url: new URL('http://default:pw@127.0.0.1:41004/db') }), /HTTP port/);
});

const deployment = (over: Partial<Deployment>): Deployment => ({
  id: 'd',
  serviceId: 's',
  commitSha: null,
  commitMessage: null,
  status: 'succeeded',
  trigger: 'manual',
  kind: 'deploy',
  rollbackOf: null,
  imageTag: null,
  containerName: null,
  buildMethod: 'dockerfile',
  reason: null,
  startedAt: '2026-11-26T10:00:00.000Z',
  finishedAt: '2026-11-26T10:01:00.000Z',
  createdAt: '2026-11-26T10:00:00.000Z',
  actor: null,
  actorName: null,
  ...over,
});
const release = (over: Partial<Release>): Release => ({ id: 'r', version: 1, deploymentId: 'd', imageId: 'sha256:0', commitSha: null, commitMessage: null, createdAt: '2026-11-26T10:01:00.000Z', current: false, available: true, actor: null, actorName: null, changes: null, ...over });

t.test('release timeline: releases and the deployments that ran a kept one, newest first; failed builds left out', async (t) => {
  const releases = [release({ id: 'r2', version: 2, deploymentId: 'd2', commitSha: 'bbbbbbbbb', commitMessage: 'Second' }), release({ id: 'r1', version: 1, deploymentId: 'd1', commitSha: 'aaaaaaaaa', commitMessage: 'First', current: true })];
  const deployments = [
    deployment({ id: 'd4', kind: 'rollback', trigger: 'auto', rollbackOf: 'r1' }),
    deployment({ id: 'd3', kind: 'deploy', status: 'failed', reason: 'build failed' }),
    deployment({ id: 'd2', commitSha: 'bbbbbbbbb' }),
    deployment({ id: 'd1', commitSha: 'aaaaaaaaa' }),
  ];
  t.same(
    releaseTimelineOf(releases, deployments).map((e) => [e.version, e.kind, e.status, e.commit, e.current, e.description]),
    [
      ['v1', 'rollback', 'succeeded', 'aaaaaaa', false, 'rollback (automatic) of v1'],
      ['v2', 'deploy', 'succeeded', 'bbbbbbb', false, 'Second'],
      ['v1', 'deploy', 'succeeded', 'aaaaaaa', true, 'First'],
    ],
  );
});
