import { once } from 'node:events';
import { Writable, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeWithBackpressure } from '../runtime/backpressure.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { BackupToolError, consumingAllInput, runTool, runToolForText, type BackupTarget } from './backup-tool-run.js';
import { endpointOf } from './engine-plans.js';

/** What redis-cli may write after the snapshot when the server sends it diskless (the transfer's end mark). */
const END_MARK_SIZE = 40;
/** How long the server may stay silent after it was stopped, before the restore is declared stuck. */
const ANSWER_WITHIN_MS = 60_000;

/** Passes everything on but the last `size` bytes, held until the end tells how many of them belong. */
class TailHolder extends Writable {
  private tail = Buffer.alloc(0);
  passed = 0;

  constructor(
    private readonly sink: Writable,
    private readonly size: number,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    const all = Buffer.concat([this.tail, chunk]);
    const cut = Math.max(0, all.length - this.size);
    this.tail = Buffer.from(all.subarray(cut));
    if (cut === 0) return done();
    this.passed += cut;
    writeWithBackpressure(this.sink, all.subarray(0, cut)).then(() => done(), done);
  }

  /** Until everything written to it has been passed on or held. */
  async settle() {
    this.end();
    await once(this, 'finish');
  }

  async release(keep: number) {
    if (keep > 0) await writeWithBackpressure(this.sink, this.tail.subarray(0, keep));
  }

  get held() {
    return this.tail.length;
  }
}

const cliEnv = (target: BackupTarget): Record<string, string> => {
  const { password } = endpointOf('redis', target.env, 0, null);
  return password ? { REDISCLI_AUTH: password } : {};
};

/**
 * A consistent snapshot, taken by the server as it would for a replica. With diskless replication (Redis 7's
 * default) redis-cli cannot truncate stdout and leaves the transfer's end mark after the snapshot: the bytes
 * past the size it reports are not passed on.
 */
export async function dumpRedis(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) {
  const body = new TailHolder(out, END_MARK_SIZE);
  // Its failures (the output closed under it) reach us through the exec; unheard, the event would crash.
  body.on('error', () => undefined);
  const stderr = await runTool(runtime, target, 'redis-cli --rdb', { cmd: ['redis-cli', '--no-auth-warning', '--rdb', '-'], env: cliEnv(target), stdout: body }, signal);
  await body.settle();
  const reported = /Transfer finished with success after (\d+) bytes/.exec(stderr);
  const size = reported ? Number(reported[1]) : body.passed + body.held;
  const keep = size - body.passed;
  if (keep < 0 || keep > body.held) throw new BackupToolError(`redis-cli --rdb wrote ${body.passed + body.held} bytes for a snapshot of ${size} bytes`);
  await body.release(keep);
}

/** redis-cli's answer to one command; a refused login or an error reply is a BackupToolError. */
async function ask(runtime: ContainerRuntime, target: BackupTarget, args: string[], signal: AbortSignal): Promise<string> {
  const what = `redis-cli ${args.join(' ')}`;
  const { stdout, stderr } = await runToolForText(runtime, target, what, { cmd: ['redis-cli', '--no-auth-warning', ...args], env: cliEnv(target) }, signal);
  const answer = stdout.replace(/\r/g, '');
  // Without a terminal redis-cli prints an error reply as it is (`NOAUTH …`, `ERR …`), and still exits 0.
  if (/^[A-Z]+ /.test(answer)) throw new BackupToolError(`${what} was refused: ${[answer.split('\n')[0], stderr].filter(Boolean).join(' ')}`);
  return answer;
}

interface Persistence {
  dir: string;
  appendonly: boolean;
  aofDir: string;
  aofName: string;
  rdbName: string;
}

async function persistenceOf(runtime: ContainerRuntime, target: BackupTarget, signal: AbortSignal): Promise<Persistence> {
  const lines = (await ask(runtime, target, ['config', 'get', 'dir', 'appendonly', 'appenddirname', 'appendfilename', 'dbfilename'], signal)).split('\n');
  const settings = new Map<string, string>();
  for (let i = 0; i + 1 < lines.length; i += 2) settings.set(lines[i]!, lines[i + 1]!);
  const dir = settings.get('dir');
  if (!dir) throw new BackupToolError(`redis did not tell where it keeps its data: ${lines.join(' ').trim()}`);
  const appendonly = settings.get('appendonly') === 'yes';
  const aofDir = settings.get('appenddirname');
  // Before Redis 7 the AOF is one file, not a directory with a manifest: the swap below would go unseen.
  if (appendonly && !aofDir) throw new BackupToolError('restoring a snapshot under append-only persistence needs Redis 7 or later');
  return {
    dir,
    appendonly,
    aofDir: aofDir || 'appendonlydir',
    aofName: settings.get('appendfilename') || 'appendonly.aof',
    rdbName: settings.get('dbfilename') || 'dump.rdb',
  };
}

interface ServerRun {
  id: string;
  loading: boolean;
  aofEnabled: boolean;
}

async function serverRunOf(runtime: ContainerRuntime, target: BackupTarget, signal: AbortSignal): Promise<ServerRun> {
  const info = await ask(runtime, target, ['info'], signal);
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1];
  return { id: field('run_id') ?? '', loading: field('loading') === '1', aofEnabled: field('aof_enabled') === '1' };
}

const RECEIVE = `umask 077
cat > "$1" || { rm -f "$1"; exit 1; }`;

/**
 * Checks the snapshot and builds what replaces the data beside it, changing nothing the server uses. With
 * append-only persistence (how Slipway runs redis) the server loads only its AOF and ignores dump.rdb — and
 * with no AOF at all it starts empty — so the snapshot becomes the base of a fresh AOF directory, in Redis 7's
 * manifest layout; dump.rdb gets it too (hard links: no copy of the data is made).
 */
const STAGE = String.raw`set -e
incoming=$1 appendonly=$2 aofdir=$3 aofname=$4 rdb=$5
trap 'rm -f "$incoming" "$incoming.check"' EXIT
cd "$(dirname "$incoming")"
if ! redis-check-rdb "$incoming" > "$incoming.check" 2>&1; then
  echo "the dump is not a valid RDB snapshot: $(sed -n '/RDB ERROR DETECTED/{n;p;q}' "$incoming.check")" >&2
  exit 3
fi
owner=$(stat -c %u:%g .)
chown "$owner" "$incoming"
rm -rf "$aofdir.slipway-new" "$aofdir.slipway-old" "$rdb.slipway-new"
ln "$incoming" "$rdb.slipway-new" 2>/dev/null || cp -p "$incoming" "$rdb.slipway-new"
if [ "$appendonly" = yes ]; then
  new="$aofdir.slipway-new"
  mkdir "$new"
  ln "$incoming" "$new/$aofname.1.base.rdb" 2>/dev/null || cp -p "$incoming" "$new/$aofname.1.base.rdb"
  : > "$new/$aofname.1.incr.aof"
  printf 'file %s seq 1 type b\nfile %s seq 1 type i\n' "$aofname.1.base.rdb" "$aofname.1.incr.aof" > "$new/$aofname.manifest"
  chown -R "$owner" "$new"
fi`;

/**
 * Renames only, so it is quick: the staged files take the place of the data, the previous AOF directory is
 * kept until the server has started on the new one. A background save or rewrite that ended after it would
 * write its files over the snapshot's, so none may be running.
 */
const SWAP = String.raw`set -e
dir=$1 aofdir=$2 rdb=$3
cd "$dir"
if redis-cli --no-auth-warning info persistence | tr -d '
' | grep -Eq '^(aof_rewrite_in_progress|rdb_bgsave_in_progress):1'; then
  echo "a background save started meanwhile: nothing was replaced" >&2
  exit 75
fi
mv "$rdb.slipway-new" "$rdb"
if [ -d "$aofdir.slipway-new" ]; then
  if [ -e "$aofdir" ]; then mv "$aofdir" "$aofdir.slipway-old"; fi
  mv "$aofdir.slipway-new" "$aofdir"
fi`;

/** Until no background save or AOF rewrite runs. */
async function untilIdle(runtime: ContainerRuntime, target: BackupTarget, signal: AbortSignal) {
  while (/^(aof_rewrite_in_progress|rdb_bgsave_in_progress):1$/m.test(await ask(runtime, target, ['info', 'persistence'], signal))) await sleep(200, undefined, { signal });
}

/**
 * Until a new run of the server has loaded its data. The container ends with the server: the engine's restart
 * policy starts it again, or this does; a start that finds it already running is fine.
 */
async function awaitNewRun(runtime: ContainerRuntime, target: BackupTarget, previous: string, signal: AbortSignal): Promise<ServerRun> {
  let silentSince = Date.now();
  for (;;) {
    signal.throwIfAborted();
    const run = await serverRunOf(runtime, target, signal).catch(() => null);
    if (run && !run.loading && run.id !== previous) return run;
    // A large snapshot takes a while to load: a server that says it is loading is not stuck.
    if (run?.loading) silentSince = Date.now();
    else await startIfStopped(runtime, target.container);
    if (Date.now() - silentSince > ANSWER_WITHIN_MS) throw new BackupToolError(`redis did not answer within ${ANSWER_WITHIN_MS / 1000} s of being restarted on the restored snapshot`);
    await sleep(200, undefined, { signal });
  }
}

async function startIfStopped(runtime: ContainerRuntime, container: string) {
  const state = await runtime.inspect(container, null).catch(() => null);
  if (state && !state.running) await runtime.start(container).catch(() => undefined);
}

/** Stop, replace the data, start: the server then holds exactly the snapshot, and its AOF starts from it. */
export async function restoreRedis(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) {
  const { dir, appendonly, aofDir, aofName, rdbName } = await persistenceOf(runtime, target, signal);
  const previous = await serverRunOf(runtime, target, signal);
  const incoming = `${dir}/.slipway-restore.rdb`;
  await runTool(runtime, target, 'receiving the snapshot', { cmd: consumingAllInput(RECEIVE, [incoming]), stdin: dump }, signal);
  await runTool(runtime, target, 'checking the snapshot', { cmd: ['sh', '-c', STAGE, 'sh', incoming, appendonly ? 'yes' : 'no', aofDir, aofName, rdbName] }, signal);
  await untilIdle(runtime, target, signal);
  await runTool(runtime, target, 'putting the snapshot in place', { cmd: ['sh', '-c', SWAP, 'sh', dir, aofDir, rdbName], env: cliEnv(target) }, signal);
  // From here on the snapshot is what the server loads at its next start: it is restarted now even if the
  // restore is being cancelled. NOSAVE: a plain stop would save the memory over the snapshot. The server
  // drops the connection as it exits, so this exec's outcome says nothing; a new run of the server does.
  await runtime.exec(target.container, { cmd: ['redis-cli', '--no-auth-warning', 'shutdown', 'nosave'], env: cliEnv(target) }, AbortSignal.timeout(30_000)).catch(() => undefined);
  const run = await awaitNewRun(runtime, target, previous.id, signal).catch((error: unknown) => {
    throw error instanceof BackupToolError ? new BackupToolError(`${error.message}; the previous data is kept in ${dir}/${aofDir}.slipway-old`) : error;
  });
  if (appendonly && !run.aofEnabled) throw new BackupToolError('redis started on the restored snapshot without its append-only file');
  await runTool(runtime, target, 'removing the previous data', { cmd: ['rm', '-rf', `${dir}/${aofDir}.slipway-old`] }, signal);
}
