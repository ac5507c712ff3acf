import type { SqlExecutor } from '../src/db/sql-client.js';

export interface PendingRetirement {
  aggregate_id: string;
  aggregate_type: 'project' | 'service';
  deleted_at: Date | string;
}

/** Deleted aggregates not retired yet, services first (a project's services go before it), oldest first. */
export async function pendingRetirements(db: SqlExecutor, limit = 500): Promise<PendingRetirement[]> {
  const { rows } = await db.query<PendingRetirement>(
    `select * from rm_retirements order by aggregate_type desc, deleted_at, aggregate_id limit $1`,
    [limit],
  );
  return rows;
}
