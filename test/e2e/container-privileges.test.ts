import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { Client, type ClientConfig } from 'pg';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { databaseService, testWebService } from '../helpers/http-resources.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { DB_IMAGE_ENV, DB_TEST_IMAGES, requireDbImages } from '../helpers/engine-containers.js';
import { startTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);

const PG_PASSWORD = 'pg-Secret-5120';
// Quotes, a backslash, spaces and a non-ASCII letter: the configuration file must carry it as it is.
const REDIS_MARK = 'Zebra-7731';
const REDIS_PASSWORD = `${REDIS_MARK} "q" \\ wö rd`;

const APP_DROPS = ['AUDIT_WRITE', 'MKNOD', 'NET_RAW', 'SETFCAP', 'SYS_CHROOT'];
/** Each engine's own, from its official entrypoint (ClickHouse's, root throughout, signals its init server). */
const DATABASE_ADDS = {
  pg: ['CHOWN', 'DAC_READ_SEARCH', 'SETGID', 'SETUID'],
  mysql: ['CHOWN', 'DAC_READ_SEARCH', 'SETGID', 'SETUID'],
  redis: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'],
  columnar: ['CHOWN', 'KILL', 'SETGID', 'SETUID'],
};
/** Bit numbers of capabilities in /proc/<pid>/status (linux/capability.h). */
const CAP_BIT = { NET_BIND_SERVICE: 10, NET_RAW: 13, SYS_CHROOT: 18, MKNOD: 27, SETFCAP: 31 } as const;

/** A command's outcome inside a container, as `docker exec` gives it; never throws. */
async function inside(container: string, cmd: string[], user?: string) {
  try {
    const { stdout, stderr } = await run('docker', ['exec', ...(user ? ['-u', user] : []), container, ...cmd]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The process-status fields of the container's first process: what the kernel really enforces. */
async function processStatus(container: string) {
  const status = (await inside(container, ['cat', '/proc/1/status'])).stdout;
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1] ?? '';
  const bounding = BigInt(`0x${field('CapBnd') || '0'}`);
  return { noNewPrivs: field('NoNewPrivs'), has: (bit: number) => ((bounding >> BigInt(bit)) & 1n) === 1n };
}

async function pidsMax(container: string) {
  return (await inside(container, ['sh', '-c', 'cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max'])).stdout.trim();
}

/** An address of this host that is neither loopback nor a Docker bridge: a connection to it is not relayed from a gateway. */
function hostAddress(): string | null {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (/^(docker|br-|veth)/.test(name)) continue;
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return null;
}

/** The first line a Redis server answers to an unauthenticated PING. */
function unauthenticatedPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) {
        socket.end();
        resolve(answer.split('\r\n')[0]!);
      }
    });
    socket.on('error', reject);
  });
}

t.test('app, worker and database containers run with least privilege', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DEPLOY_CONCURRENCY: '4' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Privileges');
  t.teardown(() => removeProjectLeftovers(project.id));

  const services = {
    web: await createService(s, project.id, testWebService('web')),
    worker: await createService(s, project.id, { ...testWebService('worker'), runtimeMode: 'worker' }),
    pg: await createService(s, project.id, databaseService('main-db', 'postgres', { databasePublicEnabled: true, env: [{ key: 'POSTGRES_PASSWORD', value: PG_PASSWORD }] })),
    mysql: await createService(s, project.id, databaseService('shop-db', 'mysql')),
    redis: await createService(s, project.id, databaseService('cache', 'redis', { env: [{ key: 'REDIS_PASSWORD', value: REDIS_PASSWORD }] })),
    columnar: await createService(s, project.id, databaseService('olap', 'columnar')),
  };
  const names = Object.keys(services) as (keyof typeof services)[];
  const runs = await Promise.all(names.map((n) => deploy(s, services[n].id)));
  for (const [i, r] of runs.entries()) t.equal(outcome(r.done), 'succeeded', `${names[i]} deploys`);

  const containerOf = async (name: keyof typeof services) => {
    const [found] = await docker.listContainers({ filters: { label: [`${LABEL.service}=${services[name].id}`] } });
    if (!found) throw new Error(`no container runs for ${name}`);
    return { id: found.Id, info: await docker.getContainer(found.Id).inspect() };
  };

  t.test('apps and workers: no-new-privileges, Docker\'s capabilities less five, a pids limit', async (t) => {
    for (const name of ['web', 'worker'] as const) {
      const { id, info } = await containerOf(name);
      t.same(info.HostConfig.SecurityOpt, ['no-new-privileges:true'], `${name}: no-new-privileges`);
      t.same([...(info.HostConfig.CapDrop ?? [])].sort(), APP_DROPS, `${name}: drops the capabilities an app has no use for`);
      t.same(info.HostConfig.CapAdd ?? [], [], `${name}: adds none`);
      t.equal(info.HostConfig.PidsLimit, 1024, `${name}: pids limit`);
      t.equal(await pidsMax(id), '1024', `${name}: the kernel enforces the pids limit`);
      const status = await processStatus(id);
      t.equal(status.noNewPrivs, '1', `${name}: its processes cannot gain privileges`);
      t.notOk(status.has(CAP_BIT.NET_RAW) || status.has(CAP_BIT.MKNOD) || status.has(CAP_BIT.SYS_CHROOT) || status.has(CAP_BIT.SETFCAP), `${name}: dropped ones are out of its bounding set`);
      t.ok(status.has(CAP_BIT.NET_BIND_SERVICE), `${name}: an app may still bind a low port`);
    }
    const { id } = await containerOf('web');
    const rawSocket = await inside(id, ['python3', '-c', 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)']);
    t.not(rawSocket.code, 0, 'root in the app cannot open a raw socket (ping, spoofing)');
    t.match(rawSocket.stderr, /Operation not permitted/);
    const mknod = await inside(id, ['mknod', '/tmp/kmem', 'c', '1', '2']);
    t.not(mknod.code, 0, 'nor make a device node');
    t.match(mknod.stderr, /Operation not permitted/);
  });

  t.test('databases: every capability dropped but their own entrypoint\'s, a pids limit, and they answer', async (t) => {
    for (const name of ['pg', 'mysql', 'redis', 'columnar'] as const) {
      const { id, info } = await containerOf(name);
      t.same(info.HostConfig.SecurityOpt, ['no-new-privileges:true'], `${name}: no-new-privileges`);
      t.same(info.HostConfig.CapDrop, ['ALL'], `${name}: drops all`);
      t.same([...(info.HostConfig.CapAdd ?? [])].sort(), DATABASE_ADDS[name], `${name}: adds back only what its entrypoint needs as root`);
      t.equal(info.HostConfig.PidsLimit, 4096, `${name}: pids limit`);
      t.equal(await pidsMax(id), '4096', `${name}: the kernel enforces the pids limit`);
      const status = await processStatus(id);
      t.equal(status.noNewPrivs, '1', `${name}: no-new-privileges holds for its processes`);
      t.notOk(status.has(CAP_BIT.NET_BIND_SERVICE) || status.has(CAP_BIT.NET_RAW), `${name}: nothing beyond the set`);
    }
    const answers: [keyof typeof services, string][] = [
      ['pg', 'select 1 as one'],
      ['mysql', 'select 1 as one'],
      ['columnar', 'SELECT 1 AS one'],
      ['redis', 'PING'],
    ];
    for (const [name, sql] of answers) {
      const r = await s.call('POST', `/api/services/${services[name].id}/database/query`, { body: { sql } });
      t.equal(r.status, 200, `${name} answers a query: ${JSON.stringify(r.body)}`);
    }
  });

  t.test('redis: the password is in no command line and no variable, yet it protects the server', async (t) => {
    const { id, info } = await containerOf('redis');
    t.notMatch(JSON.stringify(info), REDIS_MARK, 'docker inspect shows the password nowhere (Cmd, Args, Env, Config)');
    t.same(info.Args, ['redis-server', '/etc/slipway-redis/redis.conf'], 'the server starts from its configuration file');
    const processes = await inside(id, ['sh', '-c', 'cat /proc/[0-9]*/cmdline | tr "\\0" " "']);
    t.notMatch(processes.stdout, REDIS_MARK, 'no process inside has it on its command line');
    t.equal((await inside(id, ['stat', '-c', '%a %u', '/etc/slipway-redis/redis.conf'])).stdout.trim(), '400 999', 'the file is the redis user\'s alone');
    t.equal(await unauthenticatedPing(services.redis.hostPort), '-NOAUTH Authentication required.', 'a client without the password is refused');
    const r = await s.call('POST', `/api/services/${services.redis.id}/database/query`, { body: { sql: 'CONFIG GET appendonly' } });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.match(JSON.stringify(r.body), /"yes"/, 'append-only persistence is kept');
    t.equal((await s.call('POST', `/api/services/${services.redis.id}/database/query`, { body: { sql: 'SET "k" "v"' } })).status, 200, 'the browser logs in with the password');
  });

  t.test('public postgres: TLS from outside the project network, plain connections inside it', async (t) => {
    const ca = (await s.call('GET', `/api/services/${services.pg.id}/database/tls/ca`)).body as string;
    const login = { port: services.pg.hostPort, user: 'postgres', password: PG_PASSWORD, database: 'main_db', connectionTimeoutMillis: 5_000 };
    const attempt = async (host: string, ssl: ClientConfig['ssl']) => {
      const client = new Client({ ...login, host, ssl });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()')).rows[0].ssl as boolean;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    await t.rejects(attempt('127.0.0.1', false), /pg_hba\.conf rejects connection for host .*no encryption/, 'without TLS through the published port: refused');
    t.equal(await attempt('127.0.0.1', { ca, servername: 'localhost', rejectUnauthorized: true }), true, 'with TLS: accepted');
    const outside = hostAddress();
    if (outside) {
      await t.rejects(attempt(outside, false), /no pg_hba\.conf entry for host "[^"]+".*no encryption/, `without TLS from a client outside the network (${outside}): refused`);
      t.equal(await attempt(outside, { ca, servername: 'localhost', rejectUnauthorized: true }), true, 'with TLS from outside: accepted');
    }

    // A container of the project reaches the service by its name, without TLS.
    const name = `slipway-test-psql-${randomUUID().slice(0, 8)}`;
    const psql = await docker.createContainer({
      name,
      Image: DB_TEST_IMAGES.postgres,
      Env: [`PGPASSWORD=${PG_PASSWORD}`],
      Cmd: ['psql', 'host=main-db user=postgres dbname=main_db sslmode=disable', '-XAtc', 'select ssl from pg_stat_ssl where pid = pg_backend_pid()'],
      Labels: { 'slipway.test': 'psql' },
      HostConfig: { NetworkMode: `slipway-${project.id}` },
    });
    t.teardown(() => psql.remove({ force: true }).catch(() => undefined));
    await psql.start();
    const { StatusCode } = (await psql.wait()) as { StatusCode: number };
    const output = ((await psql.logs({ stdout: true, stderr: true })) as unknown as Buffer).toString('utf8').replace(/[\x00-\x08]/g, '').trim();
    t.equal(StatusCode, 0, `psql on the project network connects: ${output}`);
    t.match(output, /\bf$/, 'and its connection is not encrypted');
  });
});

t.test('helper containers get no capability at all; the service\'s limits apply', { skip: await requireDocker() }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 30_000, instance: randomUUID() });
  const id = randomUUID().slice(0, 8);
  const network = `slipway-test-${id}`;
  await runtime.ensureNetwork(network, { [LABEL.project]: id });
  t.teardown(async () => {
    for (const c of await runtime.list({ [LABEL.project]: id })) await runtime.remove(c.name, 0);
    await docker.getNetwork(network).remove().catch(() => undefined);
  });
  const spec = (name: string) => ({
    name: `slipway-test-${name}-${id}`,
    image: TEST_IMAGES.run,
    env: {},
    labels: { [LABEL.project]: id },
    network,
    aliases: [],
    internalPort: null,
    publish: false,
    command: ['sleep', '60'],
  });

  const helper = await runtime.run(spec('helper'));
  const info = await docker.getContainer(helper.id).inspect();
  t.same(info.HostConfig.SecurityOpt, ['no-new-privileges:true']);
  t.same(info.HostConfig.CapDrop, ['ALL'], 'a container without a profile drops every capability');
  t.same(info.HostConfig.CapAdd ?? [], []);
  t.equal(info.HostConfig.PidsLimit, 256);
  t.equal(await pidsMax(helper.id), '256');
  const chown = await inside(helper.id, ['chown', 'nobody', '/tmp']);
  t.not(chown.code, 0, 'even root in it cannot give a file away');

  const limited = await runtime.run({ ...spec('limited'), privileges: 'app', limits: { memoryBytes: 64 * 1024 * 1024, cpus: 0.5 } });
  const limits = (await docker.getContainer(limited.id).inspect()).HostConfig;
  t.equal(limits.Memory, 64 * 1024 * 1024, 'memory limit');
  t.equal(limits.NanoCpus, 500_000_000, 'CPU limit');
  const unlimited = (await docker.getContainer(helper.id).inspect()).HostConfig;
  t.equal(unlimited.Memory, 0, 'no memory limit unless the service has one');
  t.equal(unlimited.NanoCpus, 0);
});
