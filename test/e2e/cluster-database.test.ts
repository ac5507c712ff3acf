import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { AGENT_SERVICE } from '../../src/cluster/cluster-agent.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { createAuthority, issueServerCertificate } from '../../src/engines/tls-authority.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { finishedBackup } from '../helpers/backup-wait.js';
import { cliArgs, root } from '../helpers/cli-process.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, loadImages, startNodes } from '../helpers/cluster.js';
import { deploy, deployEnv, logLines, outcome, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { requireCaddy } from '../helpers/caddy.js';
import { DB_IMAGE_ENV, DB_TEST_IMAGES, requireDbImages } from '../helpers/engine-containers.js';
import { testWebService } from '../helpers/http-resources.js';
import { eventually, waitFor } from '../helpers/net.js';
import { rebuildEquals, recordedTypes } from '../helpers/rebuild-check.js';
import { readSse } from '../helpers/sse.js';
import { startTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const REGISTRY_PORT = 5443;
const AGENT_PORT = 2386;
// Node indices of this file's engines: other cluster files use 1–15 and 18–19 at the same time.
const MANAGER = 16;
const WORKER = 17;

t.setTimeout(900_000);

t.test(
  'cluster: a database pinned to the worker, browsed, backed up and moved to the manager with its data',
  { skip: (await requireDocker()) || (await requireCaddy()) || (await requireDbImages()) || (await clusterUnavailable()) },
  async (t) => {
    // The worker gets no image by hand: the agent comes through the registry, the database image is copied by Slipway.
    const cluster = await startNodes([MANAGER, WORKER], []);
    t.teardown(() => cluster.stop());
    const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await loadImages(manager, [CLUSTER_IMAGES.registry, CLUSTER_IMAGES.proxy, CLUSTER_IMAGES.agent, DB_TEST_IMAGES.postgres, TEST_IMAGES.web]);
    const { env } = await deployEnv({ ...clusterEnv(manager, REGISTRY_PORT), SLIPWAY_CLUSTER_ROUTER: `${manager.address}:7080`, ...DB_IMAGE_ENV });
    let s = await startTestServer(env);
    t.teardown(() => s.close());
    cluster.trusts(`${manager.address}:${REGISTRY_PORT}`);

    t.equal((await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } })).status, 200);
    const { joinCommand } = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
    await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
    await waitFor('two ready nodes', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as { state: string }[], (l) => l?.length === 2 && l.every((n) => n.state === 'ready'));
    const workerId = (await dockerOf(worker).info()).Swarm.NodeID as string;
    const managerId = (await dockerOf(manager).info()).Swarm.NodeID as string;

    const project = await createProject(s, 'Pinned');
    const body = { name: 'pg', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', databasePublicEnabled: false, env: [{ key: 'POSTGRES_PASSWORD', value: 'pinned-pw-1' }] };
    const unknown = await s.call('POST', `/api/projects/${project.id}/services`, { body: { ...body, nodeId: 'nosuchnode000000000000000' } });
    t.equal(unknown.status, 400, 'a node the cluster does not have is refused');
    t.match(unknown.body, { error: { code: 'validation_failed' } });
    const db = await createService(s, project.id, { ...body, nodeId: workerId });
    t.equal(db.nodeId, workerId, 'nodeId is a service field');
    const listed = async () => Object.fromEntries(((await s.call('GET', '/api/cluster/nodes')).body.nodes as { id: string; databases: { serviceId: string }[] }[]).map((n) => [n.id, n.databases.map((d) => d.serviceId)]));
    t.same(await listed(), { [workerId]: [db.id], [managerId]: [] }, 'the node list shows the database on the worker');

    let started = Date.now();
    const first = await deploy(s, db.id);
    t.comment(`first deployment on the worker (agent started, image copied, database up): ${Date.now() - started} ms`);
    t.equal(outcome(first.done), 'succeeded', 'the database deploys on the worker');
    t.ok((await logLines(s, first.queued.id)).some((l) => l.includes(`Copying image ${DB_TEST_IMAGES.postgres} to node ${workerId}`)), 'the image was copied to the worker');
    const onNode = async (node: typeof manager) => dockerOf(node).listContainers({ all: true, filters: { label: [`${LABEL.service}=${db.id}`] } });
    const volumesOn = async (node: typeof manager) => (await dockerOf(node).listVolumes({ filters: { label: [`${LABEL.service}=${db.id}`] } })).Volumes ?? [];
    const [container] = await onNode(worker);
    t.equal(container?.State, 'running', 'its container runs on the worker');
    t.equal((await onNode(manager)).length, 0, 'and not on the manager');
    t.equal((await volumesOn(worker)).length, 1, 'its volume is on the worker');
    t.ok(Object.keys(container!.NetworkSettings.Networks).includes(`slipway-o-${project.id}`), 'on the project overlay, where Swarm tasks reach it by name');
    const agent = await dockerOf(manager).getService(AGENT_SERVICE).inspect();
    t.ok(agent.Spec.Mode.Global, 'the agent runs on every node');

    // Browsing and SQL go through the worker's agent to the port the database publishes on the worker's loopback.
    const sql = (text: string) => s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: text } });
    const created = await sql("create table notes (body text); insert into notes values ('kept across the move'), ('second')");
    t.equal(created.status, 200, JSON.stringify(created.body));
    t.same((await sql('select body from notes order by body')).body.rows, [{ body: 'kept across the move' }, { body: 'second' }]);

    const logs = await readSse(`${s.url}/api/services/${db.id}/runtime-logs/stream`, s.key);
    try {
      await eventually(async () => logs.events.find((e) => e.event === 'snapshot'), Boolean, 15_000);
      const lines = logs.events.find((e) => e.event === 'snapshot')!.data as { line: string }[];
      t.ok(lines.some((l) => /ready to accept connections/.test(l.line)), 'its runtime logs come from the worker');
    } finally {
      logs.close();
    }
    const overview = await eventually(() => s.call('GET', `/api/services/${db.id}/overview`), (o) => o.body.usage !== null, 20_000);
    t.ok(overview.body.usage && overview.body.usage.memoryBytes > 0, 'its usage is read on the worker');

    const backup = await s.call('POST', `/api/services/${db.id}/database/backups`, { body: { storage: 'disk' } });
    t.equal(backup.status, 200, JSON.stringify(backup.body));
    const done = await finishedBackup(s, db.id, backup.body.backup.id);
    t.equal(done.status, 'succeeded', `the backup runs the dump on the worker (${done.error ?? ''})`);
    t.ok(done.sizeBytes > 0);

    // A restart checks each released container on the node it is on, through its agent: the database stays released.
    // What an interrupted move left there (its copy reader, of another deployment) is removed.
    const leftover = await dockerOf(worker).createContainer({
      Image: DB_TEST_IMAGES.postgres,
      Entrypoint: ['sleep', '600'],
      Labels: { ...container!.Labels, [LABEL.deployment]: '00000000-0000-4000-8000-000000000000' },
    });
    await leftover.start();
    await s.stopKeepingData();
    s = await startTestServer(env, s.dataDir);
    const afterRestart = await eventually(async () => (await onNode(worker)).map((c) => c.Id), (ids) => ids.length === 1, 30_000);
    t.same(afterRestart, [container!.Id], "after a restart only the release's container is left on the worker");
    t.match((await s.call('GET', `/api/services/${db.id}`)).body.service, { nodeId: workerId, status: 'active' }, 'after a restart it is still released on the worker');
    t.same((await sql('select body from notes order by body')).body.rows, [{ body: 'kept across the move' }, { body: 'second' }], 'and answers');

    // The agent accepts only Slipway's client certificate.
    const askAgent = (client: { cert?: string; key?: string }) =>
      new Promise<string>((resolve) => {
        const socket = connect({ host: worker.address, port: AGENT_PORT, rejectUnauthorized: false, ...client }, () => socket.write('docker\nGET /_ping HTTP/1.0\r\n\r\n'));
        let answer = '';
        socket.on('data', (d) => (answer += String(d)));
        socket.on('error', (e) => resolve(`error: ${e.message}`));
        socket.on('close', () => resolve(answer || 'closed without an answer'));
      });
    const refused = await askAgent({});
    t.notMatch(refused, /200 OK/, `a client without Slipway's certificate gets nothing from the agent (${refused.slice(0, 80)})`);
    // A client certificate of another authority (the installation's CA, which also signs database servers) neither.
    const stranger = await createAuthority('Not the agents');
    const strangerClient = await issueServerCertificate(stranger, { dnsNames: ['slipway'], ipAddresses: [] }, undefined, 'client');
    const refusedToo = await askAgent({ cert: strangerClient.certPem, key: strangerClient.keyPem });
    t.notMatch(refusedToo, /200 OK/, `nor one with a client certificate of another authority (${refusedToo.slice(0, 80)})`);
    const credentials = JSON.parse(readFileSync(join(s.dataDir, 'cluster-agent.json'), 'utf8'));
    t.match(credentials.authority.certPem, /BEGIN CERTIFICATE/, 'the agents have an authority of their own in the data directory');

    // Refusals: the same node, a service that is not a database, another project's key.
    // A Swarm service's use is its tasks' sum, each read on its node through the node's agent.
    const web = await createService(s, project.id, { ...testWebService('web'), replicas: 2 });
    t.equal(outcome((await deploy(s, web.id)).done), 'succeeded', 'a web service of 2 tasks deploys');
    // A task whose node has not given a reading yet is left out of the sum: wait for both.
    const usage = await eventually(async () => (await s.call('GET', `/api/services/${web.id}/overview`)).body.usage, (u) => u !== null && u.memoryBytes > 0 && u.pids >= 2, 20_000);
    t.ok(usage.pids >= 2, `the overview sums its tasks' use (${JSON.stringify(usage)})`);
    const move = (serviceId: string, nodeId: string, key?: string) => s.call('POST', `/api/services/${serviceId}/move`, { body: { nodeId }, ...(key ? { key } : {}) });
    t.equal((await move(db.id, workerId)).status, 409, 'not to the node it is on');
    const removal = await s.call('DELETE', `/api/cluster/nodes/${workerId}`);
    t.equal(removal.status, 409, 'the node holding its data is not removed');
    t.match(removal.body.error.message, /database services are on node17 \(pg\): move them/);
    t.equal((await move(web.id, managerId)).status, 409, 'only a database moves');
    t.equal((await move(db.id, 'nosuchnode000000000000000')).status, 400, 'not to a node the cluster lacks');
    const other = await createProject(s, 'Other');
    const outsider = await createKey(s, 'write', [other.id]);
    t.equal((await move(db.id, managerId, outsider.secret)).status, 404, "another project's key does not see it");

    // A move that fails (its port is taken on the manager) leaves the database where it was, on its data.
    const squatter = spawn('nsenter', [`--net=/run/netns/slipway-n${MANAGER}`, process.execPath, '-e', `require('net').createServer().listen(${db.hostPort}, '127.0.0.1')`], { stdio: 'ignore' });
    t.teardown(() => void squatter.kill());
    await eventually(() => run('nsenter', [`--net=/run/netns/slipway-n${MANAGER}`, 'ss', '-Hltn', `sport = :${db.hostPort}`]).then((r) => r.stdout), (out) => out.includes('LISTEN'), 10_000);
    // Through the CLI, which follows the move like a deployment and exits 1 when it fails.
    const cliEnv = { ...process.env, SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'slipway-cli-config-')) };
    const cli = await run(process.execPath, [...cliArgs, 'move', `pinned/${db.slug}`, managerId], { cwd: root, env: cliEnv, timeout: 300_000 }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
    );
    t.equal(cli.code, 1, `slipway move exits 1 when the move fails:\n${cli.output.slice(-600)}`);
    const blocked = { body: { deployment: { id: /move ([0-9a-f-]{36}) of/.exec(cli.output)?.[1] ?? 'none' } } };
    const failed = await waitForDeployment(s, db.id, blocked.body.deployment.id, 300_000);
    t.equal(failed.status, 'failed', `the move fails (${failed.reason})`);
    squatter.kill();
    t.equal((await s.call('GET', `/api/services/${db.id}`)).body.service.nodeId, workerId, 'the service is still on the worker');
    t.equal((await onNode(worker))[0]?.State, 'running', 'its old container runs again');
    t.equal((await onNode(manager)).length + (await volumesOn(manager)).length, 0, 'nothing of the failed move is left on the manager');
    t.same((await sql('select body from notes order by body')).body.rows, [{ body: 'kept across the move' }, { body: 'second' }], 'on its data');
    t.ok((await logLines(s, blocked.body.deployment.id)).some((l) => l.includes('again on the same data; it answers')), 'the log says it started again');

    // A client writes throughout the move: every write the database acknowledged must be there after it.
    const acknowledged: string[] = [];
    const refusals = new Map<number, number>();
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const row = `during the move ${n}`;
        const answer = await sql(`insert into notes values ('${row}')`);
        if (answer.status === 200) acknowledged.push(row);
        else {
          refusals.set(answer.status, (refusals.get(answer.status) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    await eventually(async () => acknowledged.length, (n) => n >= 3, 30_000);

    started = Date.now();
    const moving = await move(db.id, managerId);
    t.equal(moving.status, 200, JSON.stringify(moving.body));
    t.equal(moving.body.deployment.kind, 'move');
    const moved = await waitForDeployment(s, db.id, moving.body.deployment.id, 300_000);
    const afterMove = acknowledged.length;
    await eventually(async () => acknowledged.length, (n) => n >= afterMove + 3, 60_000);
    writing = false;
    await writer;
    const present = new Set(((await sql("select body from notes where body like 'during the move %'")).body.rows as { body: string }[]).map((r) => r.body));
    const lost = acknowledged.filter((row) => !present.has(row));
    t.same(lost, [], `every acknowledged write is on the manager after the move (${acknowledged.length} acknowledged; refused while down: ${JSON.stringify([...refusals])})`);
    t.notOk(refusals.has(500), 'a write to a database that is moving is refused, never a 500');
    t.equal((await sql("delete from notes where body like 'during the move %'")).status, 200);
    t.equal(outcome(moved), 'succeeded', 'the move succeeds');
    t.comment(`the move (stop, copy, start on the manager, restore, clean the worker) took ${Date.now() - started} ms`);
    if (moved.status !== 'succeeded') t.comment((await logLines(s, moving.body.deployment.id)).join('\n'));
    t.equal((await s.call('GET', `/api/services/${db.id}`)).body.service.nodeId, managerId, 'the service is on the manager');
    t.same(await listed(), { [workerId]: [], [managerId]: [db.id] }, 'and the node list on the manager');
    // An operator's rebuild from the log puts the service on the node it moved to (ServiceCreated, then ServiceMoved).
    await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] }, () => undefined);
    t.equal((await s.call('GET', `/api/services/${db.id}`)).body.service.nodeId, managerId, 'a rebuilt read model has it on the manager');

    t.equal((await onNode(manager))[0]?.State, 'running', 'its container runs on the manager');
    t.equal((await onNode(worker)).length, 0, 'nothing of it is left on the worker');
    t.equal((await volumesOn(worker)).length, 0, 'nor its old volume');
    t.same((await sql('select body from notes order by body')).body.rows, [{ body: 'kept across the move' }, { body: 'second' }], 'the data came along');
    const events = (await s.call('GET', '/api/events?type=ServiceMoved')).body.events as { data: { nodeId: string } }[];
    t.same(
      events.map((e) => e.data.nodeId),
      [managerId],
      'the move is in the history',
    );

    t.equal((await s.call('DELETE', `/api/services/${db.id}`)).status, 200);
    await eventually(async () => (await onNode(manager)).length + (await volumesOn(manager)).length, (n) => n === 0, 30_000);
    t.pass('deleting the service removes its container and volume from its node');
    await eventually(async () => (await s.app.db.query('select id from rm_backup_removals')).rows.length, (n) => n === 0, 60_000);
    t.pass("and its backups' files are removed");

    // The whole history, the move included, rebuilds into the same read models.
    await s.app.deployer?.stop();
    t.ok((await recordedTypes(s)).has('ServiceMoved'));
    await rebuildEquals(t, s);
  },
);
