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

export async function listRunningImports(db: SqlExecutor): Promise<ImportRow[]> {
  const { rows } = await db.query<ImportRow>("select * from rm_imports where status = 'running' order by created_at, id");
  return rows;
}
