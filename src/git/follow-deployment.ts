import { isFinished } from '../../commands/deployment/aggregate.js';
import { findDeployment, listDeploymentLogs, type DeploymentRow } from '../../projections/deployment-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';

/** What following a deployment reads: its read model, and a wake-up when events have been applied. */
export interface DeploymentFollowDeps {
  db: SqlExecutor;
  /** Calls back after each applied batch with the streams it held; answers the way to stop listening. */
  onApplied: (listener: (batch: readonly { streamId: string }[]) => void) => () => void;
}

const POLL_MS = 1_000;

/** Passes on the deployment's log lines as they are recorded; its row once it has ended, null if `gone` first. */
export function followDeployment(deps: DeploymentFollowDeps, id: string, onLine: (line: string) => void, gone: () => boolean): Promise<DeploymentRow | null> {
  return new Promise((resolve, reject) => {
    let last = 0;
    let running = false;
    let again = false;
    let done = false;
    const finish = (row: DeploymentRow | null) => {
      done = true;
      unsubscribe();
      clearInterval(timer);
      resolve(row);
    };
    const pump = async () => {
      do {
        again = false;
        if (gone()) return finish(null);
        const row = await findDeployment(deps.db, id);
        for (const log of await listDeploymentLogs(deps.db, id, last)) {
          onLine(log.line);
          last = log.id;
        }
        if (!row) return finish(null);
        if (isFinished(row.status)) return finish(row);
      } while (again && !done);
    };
    const kick = () => {
      if (done) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      pump()
        .catch((error: unknown) => {
          done = true;
          unsubscribe();
          clearInterval(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => (running = false));
    };
    const unsubscribe = deps.onApplied((batch) => {
      if (batch.some((e) => e.streamId.endsWith(id))) kick();
    });
    // Also on a clock: the end of a push must not hang on a missed wake-up.
    const timer = setInterval(kick, POLL_MS);
    kick();
  });
}
