import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { dumpDatabase, restoreDatabase, type BackupTarget } from '../engines/backup-tools.js';
import { createPrivateFile, openPrivateFile, privateDirectory } from '../private-files.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import type { DeploymentLog } from './deployment-log.js';
import { DeployFailure, step, type RunDeps } from './deployment-run.js';

/** A move's copy of the data, in Slipway's work directory until the move ends. */
export interface MoveCopy {
  /** Restores the copy into the database running in `container` (on the node it moved to). */
  restoreInto(runtime: ContainerRuntime, container: string, signal: AbortSignal): Promise<void>;
  remove(): void;
}

/**
 * Dumps the running database with its engine's own tool (as a backup does) into a private file. Writes that
 * reach the database after the dump began are not in it: the database stops right after.
 */
export async function copyForMove(deps: RunDeps, runtime: ContainerRuntime, target: BackupTarget, id: string, log: DeploymentLog, signal: AbortSignal): Promise<MoveCopy> {
  privateDirectory(deps.settings.workDir);
  const path = join(deps.settings.workDir, `${id}.move`);
  rmSync(path, { force: true });
  const remove = () => rmSync(path, { force: true });
  log.system(`Copying the data out of ${target.container} with the engine's dump tool`);
  await step('copying the data out', deps.settings.databases.copyMs, signal, async (s) => {
    const out = createPrivateFile(path);
    try {
      await dumpDatabase(runtime, target, out, s);
    } finally {
      out.end();
      await finished(out).catch(() => undefined);
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
