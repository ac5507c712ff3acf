import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { requireCaddy } from '../helpers/caddy.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, loadImages, startNodes } from '../helpers/cluster.js';
import { deploy, deployEnv, deploymentOf, logLines, outcome } from '../helpers/deploy.js';
import { requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, DB_TEST_IMAGES, requireDbImages } from '../helpers/engine-containers.js';
import { waitFor } from '../helpers/net.js';
import { startSlipwayProcess, type SlipwayProcess } from '../helpers/slipway-process.js';

const run = promisify(execFile);
// Node indices of this file's engines: other cluster files use 1–17 at the same time.
const MANAGER = 18;
const WORKER = 19;

t.setTimeout(600_000);

t.test(
  'cluster: Slipway killed while a database moves to the worker leaves it on the manager, and nothing on the worker',
  { skip: (await requireDocker()) || (await requireCaddy()) || (await requireDbImages()) || (await clusterUnavailable()) },
  async (t) => {
    const cluster = await startNodes([MANAGER, WORKER], []);
    t.teardown(() => cluster.stop());
    const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await loadImages(manager, [CLUSTER_IMAGES.registry, CLUSTER_IMAGES.proxy, CLUSTER_IMAGES.agent, DB_TEST_IMAGES.postgres]);
    const { env } = await deployEnv({ ...clusterEnv(manager, 5443), SLIPWAY_CLUSTER_ROUTER: `${manager.address}:7080`, ...DB_IMAGE_ENV });
    const dataDir = mkdtempSync(join(tmpdir(), 'slipway-move-crash-'));
    let s: SlipwayProcess = await startSlipwayProcess(dataDir, env);
    t.teardown(async () => {
      await s.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });
    cluster.trusts(`${manager.address}:5443`);

    t.equal((await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } })).status, 200, 'the installation becomes a Swarm manager');
    const { joinCommand } = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
    await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
    await waitFor('two ready nodes', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as { state: string }[], (l) => l?.length === 2 && l.every((n) => n.state === 'ready'));
    const workerId = (await dockerOf(worker).info()).Swarm.NodeID as string;
    // Pinned to the manager's node: Slipway reaches it through the agent (this test's engines are in namespaces).
    const managerId = (await dockerOf(manager).info()).Swarm.NodeID as string;

    const project = (await s.call('POST', '/api/projects', { body: { name: 'Crash' } })).body.project;
    const created = await s.call('POST', `/api/projects/${project.id}/services`, {
      body: { name: 'pg', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', databasePublicEnabled: false, env: [{ key: 'POSTGRES_PASSWORD', value: 'crash-pw-1' }], nodeId: managerId },
    });
    const db = created.body.service;
    t.equal(outcome((await deploy(s, db.id)).done), 'succeeded', 'the database deploys on the manager');
    const sql = (text: string) => s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: text } });
    t.equal((await sql("create table notes (body text); insert into notes values ('before the crash')")).status, 200, 'it holds data');
    const onNode = async (node: typeof manager) => dockerOf(node).listContainers({ all: true, filters: { label: [`${LABEL.service}=${db.id}`] } });
    const volumesOn = async (node: typeof manager) => (await dockerOf(node).listVolumes({ filters: { label: [`${LABEL.service}=${db.id}`] } })).Volumes ?? [];

    // Killed once the new container runs on the worker, on the project's overlay under the service's name.
    const moving = await s.call('POST', `/api/services/${db.id}/move`, { body: { nodeId: workerId } });
    t.equal(moving.status, 200, moving.status === 200 ? 'the move is queued' : JSON.stringify(moving.body));
    const moveId = moving.body.deployment.id as string;
    await waitFor('the new container on the worker', () => logLines(s, moveId), (lines) => lines.some((l) => /^Started .* on node /.test(l)), 240_000);
    await s.kill();
    t.equal((await onNode(worker))[0]?.State, 'running', 'when Slipway dies, the half-moved database runs on the worker');

    s = await startSlipwayProcess(dataDir, env);
    const ended = await deploymentOf(s, db.id, moveId);
    t.equal(ended?.status, 'failed', `the interrupted move is failed at restart (${ended?.reason})`);
    t.equal((await s.call('GET', `/api/services/${db.id}`)).body.service.nodeId, managerId, 'the service is still on the manager');
    t.same(await onNode(worker), [], 'its container on the worker is removed: only one database answers to its name');
    t.same(await volumesOn(worker), [], 'and the volume it started there');
    t.equal((await onNode(manager))[0]?.State, 'running', 'the old container runs again on the manager');
    const rows = await waitFor('the data', () => sql('select body from notes'), (r) => r.status === 200, 60_000);
    t.same(rows.body.rows, [{ body: 'before the crash' }], 'on its data');
  },
);
