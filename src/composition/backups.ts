import { remoteStorageSettings } from '../../commands/settings/handlers.js';
import type { SqlClient } from '../db/sql-client.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import type { BackupDeps } from '../processes/backup/backup-target.js';
import type { Keyring } from '../secrets/keyring.js';
import type { CommandContexts } from './command-contexts.js';
import type { DockerHosts } from './docker-hosts.js';

export interface BackupsDeps {
  dataDir: string;
  timeoutMs: number;
  db: SqlClient;
  keyring: Keyring;
  hosts: Pick<DockerHosts, 'runtime' | 'nodes'>;
  outbound: DestinationPolicy;
  commandContext: CommandContexts;
}

/** What backups, restores and downloads need: the runtime, the data directory, the remote storage. */
export function backupDeps({ dataDir, timeoutMs, db, keyring, hosts, outbound, commandContext }: BackupsDeps): BackupDeps {
  const cmd = commandContext('system:backups');
  return {
    cmd,
    db,
    keyring,
    runtime: hosts.runtime,
    nodes: hosts.nodes,
    dataDir,
    timeoutMs,
    async remoteStorage() {
      const connected = await remoteStorageSettings(cmd);
      return connected ? (await import('../integrations/remote-storage.js')).openRemoteStorage(connected, outbound) : null;
    },
  };
}
