import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { ENGINE_CATALOGUE } from '../../commands/service/engines.js';
import type { Engine } from '../../commands/service/fields.js';
import { enginePlan, type ServerTls } from '../../src/engines/engine-plans.js';
import { createAuthority, issueServerCertificate } from '../../src/engines/tls-authority.js';
import { databaseProfileOf, PRIVILEGES, privilegedHostConfig } from '../../src/runtime/container-privileges.js';
import { LABEL, type ContainerSpec } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { DB_TEST_IMAGES, requireDbImages } from '../helpers/engine-containers.js';

// Each stand-in follows its official entrypoint step by step, as root where that one is root: started exactly as
// Slipway starts it (the engine's plan, its profile, the variables a new service gets), its own steps must all
// happen — the init database created, the server exec'd as the engine's user — at the first start and again on
// its own data.

const run = promisify(execFile);
const PASSWORD = 'pw-Entry-4471';
const SLUG = 'entry-db';
const DB_NAME = 'entry_db';

type StandIn = Exclude<Engine, 'mongodb' | 'timeseries'>;
/** Postgres twice: with TLS on, Slipway hands the key to postgres as root before the entrypoint runs. */
type Case = StandIn | 'postgres with TLS';

interface Steps {
  /** The server's process name and the user the entrypoint must have exec'd it as. */
  server: string;
  uid: number;
  /** Prints `1` once the database the entrypoint creates exists (redis has none: it answers instead). */
  check: string[];
}

const STEPS: Record<StandIn, Steps> = {
  postgres: { server: 'postgres', uid: 999, check: ['psql', '-U', 'postgres', '-d', 'postgres', '-XAtc', `select count(*) from pg_database where datname = '${DB_NAME}'`] },
  mysql: { server: 'mariadbd', uid: 999, check: ['sh', '-c', `MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mariadb -uroot -N -e "select count(*) from information_schema.schemata where schema_name = '${DB_NAME}'"`] },
  redis: { server: 'redis-server', uid: 999, check: ['sh', '-c', `[ "$(redis-cli --no-auth-warning -a '${PASSWORD}' ping)" = PONG ] && echo 1`] },
  columnar: { server: 'clickhouse-serv', uid: 101, check: ['clickhouse-client', '--password', PASSWORD, '-q', `SELECT count() FROM system.databases WHERE name = '${DB_NAME}'`] },
};

async function inside(container: string, cmd: string[]) {
  try {
    const { stdout } = await run('docker', ['exec', container, ...cmd]);
    return stdout.trim();
  } catch {
    return null;
  }
}

/** Who the container's first process is: the entrypoint until it has exec'd the server as its user. */
async function firstProcess(container: string) {
  const out = await inside(container, ['sh', '-c', 'stat -c %u /proc/1 && cat /proc/1/comm']);
  const [uid, name] = (out ?? '').split('\n');
  return { uid: Number(uid), name: name ?? '' };
}

async function logsOf(id: string) {
  const out = (await docker.getContainer(id).logs({ stdout: true, stderr: true, tail: 30 })) as unknown as Buffer;
  return out.toString('utf8').replace(/[\x00-\x08]/g, '');
}

/** Until the entrypoint's steps have all happened, or the container ended (its logs say why). */
async function settled(id: string, steps: Steps): Promise<{ ok: true } | { ok: false; exitCode: number; logs: string }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const state = (await docker.getContainer(id).inspect()).State;
    if (!state.Running) return { ok: false, exitCode: state.ExitCode, logs: await logsOf(id) };
    const first = await firstProcess(id);
    if (first.name === steps.server && first.uid === steps.uid && (await inside(id, steps.check)) === '1') return { ok: true };
    if (Date.now() > deadline) return { ok: false, exitCode: -1, logs: `still ${JSON.stringify(first)}\n${await logsOf(id)}` };
    await sleep(250);
  }
}

t.test('each stand-in runs its entrypoint\'s own steps under the profile Slipway gives its engine', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 60_000, instance: randomUUID() });
  const id = randomUUID().slice(0, 8);
  const labels = { [LABEL.project]: id };
  const network = `slipway-test-entry-${id}`;
  await runtime.ensureNetwork(network, labels);
  t.teardown(async () => {
    for (const c of await runtime.list(labels)) await runtime.remove(c.name, 0);
    await docker.getNetwork(network).remove().catch(() => undefined);
    await runtime.removeVolumes(labels).catch(() => undefined);
  });

  /** The container Slipway's database deployment would create for `engine`: its plan, its variables, its profile. */
  const specOf = (engine: StandIn, name: string, tls: ServerTls | null = null): ContainerSpec => {
    const variables = ENGINE_CATALOGUE[engine].variables(SLUG, () => PASSWORD, () => 'unused');
    const plan = enginePlan(engine, DB_TEST_IMAGES[engine], variables, { logicalReplication: false, tls, network: [] });
    return {
      name: `slipway-test-${name}-${id}`,
      image: plan.image,
      env: plan.env,
      labels,
      network,
      aliases: [],
      internalPort: plan.port,
      publish: false,
      command: plan.command,
      volumes: [{ name: `slipway-test-${name}-${id}`, target: plan.dataDir, labels }],
      files: plan.files,
      privileges: databaseProfileOf(engine),
    };
  };

  const authority = await createAuthority('Slipway test CA');
  const server = await issueServerCertificate(authority, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const tls: ServerTls = { ...server, caPem: authority.certPem };
  const cases: [Case, StandIn, ServerTls | null][] = [
    ['postgres', 'postgres', null],
    ['postgres with TLS', 'postgres', tls],
    ['mysql', 'mysql', null],
    ['redis', 'redis', null],
    ['columnar', 'columnar', null],
  ];
  for (const [name, engine, withTls] of cases) {
    t.test(name, async (t) => {
      const steps = STEPS[engine];
      const spec = specOf(engine, engine + (withTls ? '-tls' : ''), withTls);
      const { id: container } = await runtime.run(spec);
      const info = await docker.getContainer(container).inspect();
      t.same(info.HostConfig.CapDrop, ['ALL'], 'every capability dropped');
      t.same([...(info.HostConfig.CapAdd ?? [])].sort(), [...PRIVILEGES[databaseProfileOf(engine)].capAdd], 'but its engine\'s own');
      t.same(info.HostConfig.SecurityOpt, ['no-new-privileges:true']);

      const first = await settled(container, steps);
      t.ok(first.ok, `first start: the init database exists and ${steps.server} runs as uid ${steps.uid}: ${JSON.stringify(first)}`);

      // The second start finds the data directory its user owns (and may alone read): the entrypoint walks it as root.
      await runtime.stop(spec.name, 10);
      await runtime.start(spec.name);
      const again = await settled(container, steps);
      t.ok(again.ok, `restart on its own data: ${JSON.stringify(again)}`);
      if (withTls) t.equal(await inside(container, ['psql', '-U', 'postgres', '-XAtc', 'show ssl']), 'on', 'the server runs with the key handed over');
    });
  }

  t.test('clickhouse: without KILL — the database profile as it was — the entrypoint cannot stop its init server', async (t) => {
    const spec = specOf('columnar', 'columnar-nokill');
    const before = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'];
    const container = await docker.createContainer({
      name: spec.name,
      Image: spec.image,
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      Labels: labels,
      HostConfig: { ...privilegedHostConfig(databaseProfileOf('columnar')), CapAdd: before, NetworkMode: network },
    });
    t.teardown(() => container.remove({ force: true, v: true }).catch(() => undefined));
    await container.start();
    const outcome = await settled(container.id, STEPS.columnar);
    t.notOk(outcome.ok, 'the container does not come up');
    t.match(outcome, { ok: false, exitCode: 1 }, 'the entrypoint exits 1');
    t.match(outcome.ok ? '' : outcome.logs, /kill: .*Operation not permitted/, 'because root may not signal the clickhouse user\'s init server');
    t.match(outcome.ok ? '' : outcome.logs, /Finishing of ClickHouse init process failed/);
  });
});
