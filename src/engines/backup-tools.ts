import type { Readable, Writable } from 'node:stream';
import type { Engine } from '../shared/database-engine.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { dumpClickhouse, restoreClickhouse } from './backup-clickhouse.js';
import { dumpMongodb, restoreMongodb } from './backup-mongodb.js';
import { dumpMysql, restoreMysql } from './backup-mysql.js';
import { dumpPostgres, restorePostgres } from './backup-postgres.js';
import { dumpRedis, restoreRedis } from './backup-redis.js';
import type { BackupTarget } from './backup-tool-run.js';

export { BackupToolError, type BackupTarget } from './backup-tool-run.js';

/** The format each engine's dump is in, and the extension of its file. */
export const BACKUP_FORMATS: Record<Engine, { format: string; extension: string }> = {
  postgres: { format: 'custom', extension: 'dump' },
  timeseries: { format: 'custom', extension: 'dump' },
  mysql: { format: 'sql', extension: 'sql' },
  redis: { format: 'rdb', extension: 'rdb' },
  columnar: { format: 'native', extension: 'tar' },
  mongodb: { format: 'archive', extension: 'archive.gz' },
};

interface EngineBackup {
  dump(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal): Promise<void>;
  restore(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal): Promise<void>;
}

/** The engine's own tools, run inside its running container so their version is the server's. */
const TOOLS: Record<Engine, EngineBackup> = {
  postgres: { dump: dumpPostgres, restore: restorePostgres },
  timeseries: { dump: dumpPostgres, restore: restorePostgres },
  mysql: { dump: dumpMysql, restore: restoreMysql },
  redis: { dump: dumpRedis, restore: restoreRedis },
  columnar: { dump: dumpClickhouse, restore: restoreClickhouse },
  mongodb: { dump: dumpMongodb, restore: restoreMongodb },
};

/** Streams a consistent dump to `out` (never held whole in memory), leaving `out` open. Rejects with BackupToolError on a non-zero exit. */
export function dumpDatabase(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal): Promise<void> {
  return TOOLS[target.engine].dump(runtime, target, out, signal);
}

/**
 * Restores a dump (a stream of `size` bytes) into the running database, replacing what the dump contains;
 * resolves once the data answers. Rejects with BackupToolError when a tool fails.
 */
export async function restoreDatabase(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, _size: number, signal: AbortSignal): Promise<void> {
  try {
    await TOOLS[target.engine].restore(runtime, target, dump, signal);
  } finally {
    // A restore refused before it read the dump would leave the caller's file open.
    dump.destroy();
  }
}
