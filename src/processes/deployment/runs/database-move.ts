import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackupToolError, dumpDatabase, restoreDatabase, type BackupTarget } from '../../../engines/backup-tools.js';
import { createPrivateFile, openPrivateFile, privateDirectory } from '../../../private-files.js';
import type { ContainerRuntime, ContainerSpec } from '../../../runtime/container-runtime.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import { message } from '../../error-message.js';
import type { RunDeps } from '../toolkit/run-deps.js';

/** A move's copy of the data, in Slipway's work directory until the move ends. */
export interface MoveCopy {
  /** Restores the copy into the database running in `container` (on the node it moved to). */
  restoreInto(runtime: ContainerRuntime, container: string, signal: AbortSignal): Promise<void>;
  remove(): void;
}

/**
 * Dumps the data of a stopped database with its engine's own tool (as a backup does) into a private file.
 * The dump runs in `reader`, a container of the same image on the same volume without any network: no client
 * can write while it runs, so every write the old container acknowledged is in the copy.
 */
export async function copyForMove(
  deps: RunDeps,
  runtime: ContainerRuntime,
  reader: ContainerSpec & { network: 'none' },
  target: Omit<BackupTarget, 'container'>,
  id: string,
  log: DeploymentLog,
  signal: AbortSignal,
): Promise<MoveCopy> {
  privateDirectory(deps.settings.workDir);
  const path = join(deps.settings.workDir, `${id}.move`);
  const remove = () => rmSync(path, { force: true });
  const dumpOnce = async (s: AbortSignal) => {
    remove();
    const out = createPrivateFile(path);
    try {
      await dumpDatabase(runtime, { ...target, container: reader.name }, out, s);
    } finally {
      out.end();
      await finished(out).catch(() => undefined);
    }
  };
  log.system(`Copying the data with the engine's dump tool in ${reader.name}, on the same volume without a network`);
  const { startMs, copyMs } = deps.settings.databases;
  await step('copying the data out', startMs + copyMs, signal, async (s) => {
    await runtime.run(reader);
    try {
      // The engine is starting on the data: its tool is refused until it answers.
      const answersBy = Date.now() + startMs;
      for (let last = ''; ; ) {
        try {
          return await dumpOnce(s);
        } catch (error) {
          if (!(error instanceof BackupToolError) || s.aborted || Date.now() > answersBy) throw error;
          if (message(error) !== last) log.system(`Not answering yet: ${(last = message(error))}`);
        }
        await sleep(500, undefined, { signal: s });
      }
    } finally {
      await runtime.remove(reader.name, 1).catch(() => undefined);
    }
  }).catch((error: unknown) => {
    remove();
    throw error;
  });
  return {
    remove,
    async restoreInto(into, container, s) {
      const file = await openPrivateFile(path);
      if (!file) throw new DeployFailure('the copy of the data disappeared before it was restored');
      log.system(`Restoring the copy (${file.size} bytes) into ${container}`);
      try {
        await step('restoring the data', deps.settings.databases.copyMs, s, (signal) =>
          restoreDatabase(into, { ...target, container }, file.handle.createReadStream({ autoClose: false }), file.size, signal),
        );
      } finally {
        await file.handle.close();
      }
    },
  };
}
