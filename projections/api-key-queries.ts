import type { SqlExecutor } from '../src/db/sql-client.js';

export interface ApiKeyRow {
  id: string;
  name: string;
  access: 'read' | 'write';
  project_ids: string[] | null;
  prefix: string;
  owner_user_id: string | null;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const COLUMNS = 'id, name, access, project_ids, prefix, owner_user_id, created_at, revoked_at';

export async function findActiveKeyByHash(db: SqlExecutor, hash: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `select ${COLUMNS} from rm_api_keys where secret_hash = $1 and revoked_at is null`,
    [hash],
  );
  return rows[0] ?? null;
}

export async function findApiKey(db: SqlExecutor, id: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(`select ${COLUMNS} from rm_api_keys where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listApiKeys(db: SqlExecutor): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(`select ${COLUMNS} from rm_api_keys order by created_at, id`);
  return rows;
}

export async function countApiKeys(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from rm_api_keys');
  return rows[0]?.n ?? 0;
}

/** A person's own keys, revoked ones included. */
export async function listKeysOf(db: SqlExecutor, userId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(`select ${COLUMNS} from rm_api_keys where owner_user_id = $1 order by created_at, id`, [userId]);
  return rows;
}
