import type { SqlExecutor } from '../src/db/sql-client.js';

export interface RemoteStorageRow {
  endpoint: string;
  region: string;
  bucket: string;
  access_key_id: string;
  prefix: string;
  force_path_style: boolean;
  connected_at: Date | string;
}

export async function findRemoteStorage(db: SqlExecutor): Promise<RemoteStorageRow | null> {
  const { rows } = await db.query<RemoteStorageRow>('select * from rm_remote_storage where id = 1');
  return rows[0] ?? null;
}
