import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openRemoteStorage } from '../src/integrations/remote-storage.js';
import { docker, removeProjectLeftovers } from '../test/helpers/docker.js';
import { claimHostPorts } from '../test/helpers/host-ports.js';
import { DB_IMAGE_ENV, dbImagesUnavailable } from '../test/helpers/engine-containers.js';
import { policyAllowing } from '../test/helpers/outbound.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import { bootstrapClient } from './bootstrap-client.js';
import { line } from './print.js';
import { rssMb } from './rss.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `docker exec` of a command with stdin from / stdout to a file, timed. */
function byHand(container: string, args: string[], io: { from?: string; to?: string }): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['exec', ...(io.from ? ['-i'] : []), container, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    if (io.from) void pipeline(Readable.from(readFileSync(io.from)), child.stdin!);
    else child.stdin!.end();
    if (io.to) void pipeline(child.stdout!, createWriteStream(io.to));
    else child.stdout!.resume();
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

/** Backups through the API against pg_dump/pg_restore by hand, upload speed, and memory during a large backup. */
export async function backupBenchmarks(startServer: StartServer) {
  const skip = await dbImagesUnavailable();
  if (skip) return line('backups', `skipped: ${skip}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-backups-'));
  const s3 = await startS3Server();
  const { child, url } = await startServer(dataDir, { ...DB_IMAGE_ENV, SLIPWAY_HOST_PORT_RANGE: claimHostPorts().range, SLIPWAY_DB_QUERY_TIMEOUT: '3600' });
  let projectId: string | null = null;
  try {
    const { call } = bootstrapClient(dataDir, url);
    projectId = (await call('POST', '/api/projects', { name: 'Backups', description: 'bench' })).body.project.id as string;
    const pg = (await call('POST', `/api/projects/${projectId}/services`, { name: 'pg', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] })).body.service;
    const deployment = (await call('POST', `/api/services/${pg.id}/deployments`)).body.deployment.id;
    for (;;) {
      const status = ((await call('GET', `/api/services/${pg.id}/deployments`)).body.deployments as { id: string; status: string }[]).find((d) => d.id === deployment)?.status;
      if (status === 'succeeded') break;
      if (status === 'failed') throw new Error('the Postgres deployment failed');
      await sleep(250);
    }
    const query = async (sql: string) => {
      for (;;) {
        const r = await call('POST', `/api/services/${pg.id}/database/query`, { sql });
        if (r.status === 200) return r.body;
        if (r.status !== 503) throw new Error(`${sql}: ${r.status} ${JSON.stringify(r.body)}`);
        await sleep(200);
      }
    };
    const seed = async (rows: number) => {
      await query('drop table if exists filler');
      // Random hex does not compress away: the dump stays close to the table's size.
      await query(`create table filler (id bigint primary key, a text, b text); insert into filler select g, md5(random()::text) || md5(random()::text), md5(random()::text) || md5(random()::text) from generate_series(1, ${rows}) g`);
      return Number((await query("select pg_total_relation_size('filler') as n")).rows[0].n);
    };
    const backUp = async (storage: string, onTick?: () => void) => {
      const started = performance.now();
      const id = (await call('POST', `/api/services/${pg.id}/database/backups`, { storage })).body.backup.id as string;
      for (;;) {
        onTick?.();
        const b = ((await call('GET', `/api/services/${pg.id}/database/backups`)).body.backups as Record<string, any>[]).find((x) => x.id === id)!;
        if (b.status === 'succeeded') return { ms: performance.now() - started, backup: b };
        if (b.status === 'failed') throw new Error(`backup failed: ${b.error}`);
        await sleep(100);
      }
    };

    const tableBytes = await seed(1_300_000);
    const container = (await docker.listContainers({ filters: { label: [`slipway.service=${pg.id}`] } }))[0]!.Names[0]!.slice(1);
    const dumpFile = join(dataDir, 'by-hand.dump');
    const dbName = 'pg';
    const handDump = await byHand(container, ['pg_dump', '-Fc', '-U', 'postgres', '-d', dbName], { to: dumpFile });
    let smallPeak = 0;
    const api = await backUp('disk', () => (smallPeak = Math.max(smallPeak, rssMb(child.pid!))));
    line(`backup of a ${(tableBytes / 1e6).toFixed(0)} MB Postgres table (dump ${(api.backup.sizeBytes / 1e6).toFixed(0)} MB)`, `${seconds(api.ms)} through the API; pg_dump -Fc by hand ${seconds(handDump)} (${(api.ms / handDump).toFixed(2)}×)`);
    const handRestore = await byHand(container, ['pg_restore', '--clean', '--if-exists', '-U', 'postgres', '-d', dbName], { from: dumpFile });
    const restoreStarted = performance.now();
    const restored = await call('POST', `/api/services/${pg.id}/database/backups/${api.backup.id}/restore`);
    if (restored.status !== 200) throw new Error(`restore: ${JSON.stringify(restored.body)}`);
    const restoreMs = performance.now() - restoreStarted;
    line('restore of that backup', `${seconds(restoreMs)} through the API (checksum verified first); pg_restore by hand ${seconds(handRestore)} (${(restoreMs / handRestore).toFixed(2)}×)`);

    const storage = await openRemoteStorage({ endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: 'bench', forcePathStyle: true }, policyAllowing(s3.endpoint));
    const size = 256 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const uploadStarted = performance.now();
    await storage.upload('bench.bin', Readable.from((function* () { for (let i = 0; i < size / chunk.length; i++) yield chunk; })()), new AbortController().signal);
    const uploadMs = performance.now() - uploadStarted;
    storage.close();
    line('upload to the local S3 server (s3rver), 256 MB', `${((size / 1048576) / (uploadMs / 1000)).toFixed(0)} MB/s`);

    line(`peak RSS during that backup (dump ${(api.backup.sizeBytes / 1e9).toFixed(2)} GB)`, `${smallPeak.toFixed(0)} MB`);
    // About 1 GB once pg_dump has compressed it.
    const bigBytes = await seed(13_000_000);
    let peak = 0;
    const baseline = rssMb(child.pid!);
    const big = await backUp('disk', () => (peak = Math.max(peak, rssMb(child.pid!))));
    line(
      `peak RSS during a backup of a ${(bigBytes / 1e9).toFixed(1)} GB table (dump ${(big.backup.sizeBytes / 1e9).toFixed(2)} GB)`,
      `${peak.toFixed(0)} MB (before it: ${baseline.toFixed(0)} MB; backup took ${seconds(big.ms)})`,
    );
    const onDisk = statSync(join(dataDir, big.backup.localPath)).size;
    if (onDisk !== big.backup.sizeBytes) throw new Error('the file on disk does not match sizeBytes');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await s3.stop();
    if (projectId) {
      await removeProjectLeftovers(projectId);
      for (const v of (await docker.listVolumes({ filters: { label: [`slipway.project=${projectId}`] } })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
