import { setTimeout as sleep } from 'node:timers/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { BackupToolError, runTool, type BackupTarget } from './backup-tools.js';

const INCOMING = '/data/.slipway-restore.rdb';

/**
 * With `--appendonly yes` (how Slipway runs redis) the server loads its AOF at start and ignores dump.rdb, and
 * Redis 7's AOF may start from an RDB base file. So the snapshot becomes the base of a fresh AOF directory
 * (and dump.rdb too, for a server without AOF), swapped in while the server runs, and the server is stopped
 * without saving and started again: it loads exactly the snapshot. A snapshot redis-check-rdb refuses
 * changes nothing.
 */
const PREPARE = `set -e
cd "$(redis-cli --no-auth-warning config get dir | sed -n 2p || echo /data)"
name=$(redis-cli --no-auth-warning config get appendfilename | sed -n 2p); name=\${name:-appendonly.aof}
dir=$(redis-cli --no-auth-warning config get appenddirname | sed -n 2p); dir=\${dir:-appendonlydir}
dump=$(redis-cli --no-auth-warning config get dbfilename | sed -n 2p); dump=\${dump:-dump.rdb}
owner=$(stat -c %u:%g .)
redis-check-rdb ${INCOMING} >/dev/null 2>&1 || { echo "the snapshot is not a valid RDB file" >&2; rm -f ${INCOMING}; exit 3; }
while [ "$(redis-cli --no-auth-warning info persistence | tr -d '\\r' | sed -n 's/^aof_rewrite_in_progress://p')" = 1 ]; do sleep 0.2; done
rm -rf "$dir.slipway-new" "$dir.slipway-old"
mkdir "$dir.slipway-new"
cp ${INCOMING} "$dir.slipway-new/$name.1.base.rdb"
: > "$dir.slipway-new/$name.1.incr.aof"
printf 'file %s seq 1 type b\\nfile %s seq 1 type i\\n' "$name.1.base.rdb" "$name.1.incr.aof" > "$dir.slipway-new/$name.manifest"
mv ${INCOMING} "$dump"
chown -R "$owner" "$dir.slipway-new" "$dump"
if [ -d "$dir" ]; then mv "$dir" "$dir.slipway-old"; fi
mv "$dir.slipway-new" "$dir"`;

/** The id of the server's current run once it has loaded its data, or null while it is down or loading. */
async function serverRun(runtime: ContainerRuntime, target: BackupTarget, env: Record<string, string>, signal: AbortSignal): Promise<string | null> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const result = await runtime
    .exec(target.container, { cmd: ['sh', '-c', 'redis-cli --no-auth-warning info | tr -d "\\r"'], env, stdout: out }, signal)
    .catch(() => null);
  if (result?.exitCode !== 0 || !/^loading:0$/m.test(text)) return null;
  return /^run_id:(\w+)$/m.exec(text)?.[1] ?? null;
}

export async function redisRestore(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal): Promise<void> {
  const env = { REDISCLI_AUTH: target.env.REDIS_PASSWORD ?? '' };
  await runTool(runtime, target, 'receiving the snapshot', { cmd: ['sh', '-c', `cat > ${INCOMING}`], stdin: dump }, signal);
  await runTool(runtime, target, 'preparing the snapshot', { cmd: ['sh', '-c', PREPARE], env }, signal);
  const before = await serverRun(runtime, target, env, signal);
  // The server exits here (the connection drops, so the exit code says nothing), and its container with it;
  // the restart policy starts it again, or we do. It is back when another run of the server has loaded.
  await runtime.exec(target.container, { cmd: ['redis-cli', '--no-auth-warning', 'shutdown', 'nosave'], env }, signal).catch(() => undefined);
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    const now = await serverRun(runtime, target, env, signal);
    if (now && now !== before) break;
    if (attempt > 600) throw new BackupToolError('redis did not answer within 60 s after the restore');
    if (attempt % 20 === 10) await runtime.start(target.container).catch(() => undefined);
    await sleep(100);
  }
  await runtime.exec(target.container, { cmd: ['sh', '-c', 'rm -rf /data/*.slipway-old'] }, signal).catch(() => undefined);
}
