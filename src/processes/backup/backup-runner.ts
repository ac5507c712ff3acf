import { rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseBackupEvent } from '../../../commands/backup/events.js';
import { backupSteps, loadBackup } from '../../../commands/backup/handlers.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import { listBackupRemovals, listRunningBackups, type BackupRow } from '../../../projections/backup-queries.js';
import { aggregateIdOf } from '../../../projections/stream-id.js';
import { dumpDatabase } from '../../engines/backup-tools.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { RemoteStorage } from '../../integrations/remote-storage.js';
import type { Logger } from '../../logger.js';
import { createPrivateFile } from '../../private-files.js';
import { backupDirectoryFor, HashingTee, partialPathOf } from './backup-files.js';
import { finishBackupDeletion } from './backup-removal.js';
import { endInterruptedRestores } from './backup-restore.js';
import { BackupFailure, backupTargetOf, type BackupDeps } from './backup-target.js';
import { message } from '../error-message.js';
import type { Reactor } from '../reactor.js';
import { RunSet } from '../run-set.js';

/**
 * One backup: the dump streamed once, through a hash, to the file (as `.partial` until complete) and to the
 * remote storage (multipart). Any failure stops the others, removes what was written, and ends it `failed`.
 */
async function runBackup(deps: BackupDeps, id: string, signal: AbortSignal): Promise<void> {
  if ((await backupSteps.start(deps.cmd, id)).events.length === 0) return;
  const r = (await loadBackup(deps.cmd, id)).requested!;
  const stop = new AbortController();
  const cut = AbortSignal.any([signal, stop.signal, AbortSignal.timeout(deps.timeoutMs)]);
  // The `.partial` file while it is written, and the name it takes once complete.
  let partial: string | null = null;
  let complete: string | null = null;
  let storage: RemoteStorage | null = null;
  try {
    const target = await backupTargetOf(deps, r.serviceId);
    if (r.remoteKey) {
      storage = await deps.remoteStorage();
      if (!storage) throw new BackupFailure('remote storage is not connected: connect it with PUT /api/settings/remote-storage');
    }
    const sinks: Writable[] = [];
    const work: Promise<unknown>[] = [];
    if (r.localPath) {
      const path = join(deps.dataDir, r.localPath);
      backupDirectoryFor(deps.dataDir, dirname(path));
      complete = path;
      partial = partialPathOf(path);
      const file = createPrivateFile(partial);
      sinks.push(file);
      work.push(finished(file));
    }
    if (storage && r.remoteKey) {
      const upload = new PassThrough({ highWaterMark: 1 << 20 });
      sinks.push(upload);
      work.push(storage.upload(r.remoteKey, upload, cut));
    }
    const tee = new HashingTee(sinks);
    // Its failures reach us through the promises below; an 'error' event with no listener would crash the process.
    tee.on('error', () => undefined);
    work.push(dumpDatabase(target.runtime, target, tee, cut).then(() => new Promise<void>((done, fail) => tee.end((e?: Error | null) => (e ? fail(e) : done())))));
    // The first failure stops the rest: the dump's output and every sink are closed, so nothing waits on them.
    const outcomes = await Promise.allSettled(
      work.map((w) =>
        w.catch((error: unknown) => {
          stop.abort(error);
          tee.destroy(error as Error);
          for (const s of sinks) s.destroy(error as Error);
          throw error;
        }),
      ),
    );
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    if (partial && complete) await rename(partial, complete);
    partial = null;
    await backupSteps.succeed(deps.cmd, id, { sizeBytes: tee.size, checksum: tee.checksum });
  } catch (error) {
    if (partial) await unlink(partial).catch(() => undefined);
    if (storage && r.remoteKey) await storage.remove(r.remoteKey).catch(() => undefined);
    const reason = signal.aborted ? String(signal.reason) : cut.aborted && !stop.signal.aborted ? `the backup ran longer than ${deps.timeoutMs / 1000} s` : message(error);
    await backupSteps.fail(deps.cmd, id, reason);
  } finally {
    storage?.close();
  }
}

/**
 * The process manager that runs backups. A requested backup is taken from the log (or, if that was missed,
 * from the read model by `reconcile`). One that was started but has no run in this process was interrupted
 * (Slipway stopped or crashed): it ends `failed` and what it wrote is removed.
 */
export class BackupRunner implements Reactor {
  readonly name = 'backup-runner';
  private readonly runs: RunSet;

  constructor(
    private readonly deps: BackupDeps,
    private readonly log: Logger,
  ) {
    this.runs = new RunSet((id, error) => log.error('backup run failed', { backup: id, error: message(error) }));
  }

  async handle(batch: readonly RecordedEvent[]) {
    for (const recorded of batch) {
      const event = parseBackupEvent(recorded);
      if (event?.type === 'BackupRequested') this.launch(aggregateIdOf(recorded.streamId), event.data.serviceId);
      const serviceEvent = event ? null : parseServiceEvent(recorded);
      if (serviceEvent?.type === 'ServiceDeleted') {
        const serviceId = aggregateIdOf(recorded.streamId);
        this.runs.abortService(serviceId, 'the service was deleted');
        await rm(join(this.deps.dataDir, 'backups', serviceId), { recursive: true, force: true });
      }
    }
  }

  async reconcile() {
    if (this.runs.stopped) return;
    await this.endInterruptedRestoresOnce();
    for (const row of await listRunningBackups(this.deps.db)) {
      if (this.runs.has(row.id)) continue;
      if (row.run_started) await this.interrupted(row);
      else this.launch(row.id, row.service_id);
    }
    await this.finishDeletions();
  }

  /** Deletions whose file or object removal did not complete (a failure, a crash in between) are finished. */
  private async finishDeletions() {
    for (const removal of await listBackupRemovals(this.deps.db)) {
      if (this.runs.stopped) return;
      // A run of a deleted service's backup is being stopped: it cleans up after itself, then this goes on.
      if (this.runs.has(removal.id)) continue;
      await finishBackupDeletion(this.deps, removal).catch((error: unknown) =>
        this.log.warn('could not remove the copies of a deleted backup; retried at the next reconcile', { backup: removal.id, error: message(error) }),
      );
    }
  }

  private readonly startedAt = new Date();
  private restoresChecked = false;

  /** A restore runs inside its request: one this process did not start was cut short (see backup-restore.ts). */
  private async endInterruptedRestoresOnce() {
    if (this.restoresChecked) return;
    await endInterruptedRestores(this.deps, this.startedAt);
    this.restoresChecked = true;
  }

  /** Stops taking work; runs in progress end `failed` with the reason. */
  stop() {
    return this.runs.stop('Slipway was stopped during the backup');
  }

  private launch(id: string, serviceId: string) {
    this.runs.launch(id, serviceId, (signal) => runBackup(this.deps, id, signal));
  }

  /** Cleans up only if this call ended it: a backup that finished meanwhile keeps its file and object. */
  private async interrupted(row: BackupRow) {
    const ended = await backupSteps.fail(this.deps.cmd, row.id, 'Slipway stopped while the backup ran; nothing of it was kept');
    if (ended.events.length === 0) return;
    if (row.local_path) await unlink(partialPathOf(join(this.deps.dataDir, row.local_path))).catch(() => undefined);
    if (row.remote_key) {
      const storage = await this.deps.remoteStorage().catch(() => null);
      await storage?.remove(row.remote_key).catch(() => undefined);
      storage?.close();
    }
  }
}
