import type { SqlExecutor } from '../src/db/sql-client.js';

export interface ImportRow {
  id: string;
  service_id: string;
  project_id: string;
  engine: string;
  source: 'postgres-url' | 'redis-url';
  source_label: string;
  status: 'running' | 'succeeded' | 'failed';
  error: string | null;
  run_started: boolean;
  created_at: Date | string;
  started_at: Date | string;
  finished_at: Date | string | null;
}

export async function findImport(db: SqlExecutor, id: string): Promise<ImportRow | null> {
  const { rows } = await db.query<ImportRow>('select * from rm_imports where id = $1', [id]);
  return rows[0] ?? null;
}

/** Newest first. */
export async function listImportsOf(db: SqlExecutor, serviceId: string): Promise<ImportRow[]> {
  const { rows } = await db.query<ImportRow>('select * from rm_imports where service_id = $1 order by created_at desc, id desc', [serviceId]);
  return rows;
}

/** The service's import that has not ended (requested or running), if there is one. */
export async function findUnfinishedImport(db: SqlExecutor, serviceId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>("select id from rm_imports where service_id = $1 and status = 'running' limit 1", [serviceId]);
  return rows[0]?.id ?? null;
}

/** The ids of every import into the service, ended or not: their data keys go when it is retired. */
export async function importIdsOf(db: SqlExecutor, serviceId: string): Promise<string[]> {
  return (await db.query<{ id: string }>('select id from rm_imports where service_id = $1', [serviceId])).rows.map((r) => r.id);
}

export async function listRunningImports(db: SqlExecutor): Promise<ImportRow[]> {
  const { rows } = await db.query<ImportRow>("select * from rm_imports where status = 'running' order by created_at, id");
  return rows;
}
