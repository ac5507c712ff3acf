import type { SqlExecutor } from '../src/db/sql-client.js';

export interface ProjectRow {
  id: string;
  name: string;
  slug: string;
  description: string;
  created_at: Date | string;
  updated_at: Date | string;
}

/** `visible` null: every project. */
export async function listProjects(db: SqlExecutor, visible: readonly string[] | null): Promise<ProjectRow[]> {
  const { rows } = await db.query<ProjectRow>(
    `select * from rm_projects where ($1::jsonb is null or $1::jsonb ? id) order by created_at, id`,
    [visible === null ? null : JSON.stringify(visible)],
  );
  return rows;
}

export async function findProject(db: SqlExecutor, by: { id: string } | { slug: string }): Promise<ProjectRow | null> {
  const [column, value] = 'id' in by ? ['id', by.id] : ['slug', by.slug];
  const { rows } = await db.query<ProjectRow>(`select * from rm_projects where ${column} = $1`, [value]);
  return rows[0] ?? null;
}
