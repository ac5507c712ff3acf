import type { Engine } from '../../../commands/service/fields.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { findService } from '../../../projections/service-queries.js';
import type { NodeHosts } from '../../cluster/node-hosts.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { BackupTarget } from '../../engines/backup-tools.js';
import type { RemoteStorage } from '../../integrations/remote-storage.js';
import type { ContainerRuntime } from '../../runtime/container-runtime.js';
import type { Keyring } from '../../secrets/keyring.js';
import { resolvedVariablesOf } from '../../variables/project-variables.js';

export interface BackupDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  keyring: Keyring;
  runtime: ContainerRuntime;
  /** The engine each database service runs on (its node's, in cluster mode). */
  nodes: NodeHosts;
  dataDir: string;
  /** The connected remote storage, or null when none is. */
  remoteStorage(): Promise<RemoteStorage | null>;
  timeoutMs: number;
}

/** A refusal with a reason a user can act on (as opposed to a fault in Slipway). */
export class BackupFailure extends Error {}

/** The running container of a database service and its variables, as the dump and restore tools need them, and its engine. */
export async function backupTargetOf(deps: Pick<BackupDeps, 'db' | 'keyring' | 'nodes'>, serviceId: string): Promise<BackupTarget & { runtime: ContainerRuntime }> {
  const row = await findService(deps.db, serviceId);
  if (!row || row.kind !== 'database' || !row.database_engine) throw new BackupFailure('the service is gone or is not a database service');
  if (!row.current_container) throw new BackupFailure('the database is not running: deploy it first');
  return {
    container: row.current_container,
    engine: row.database_engine as Engine,
    env: await resolvedVariablesOf(deps.db, deps.keyring, row),
    runtime: await deps.nodes.runtime(row.node_id),
  };
}
