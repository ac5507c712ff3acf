import { ALL_PROJECTORS } from '../../projections/all.js';
import type { SqlExecutor } from '../../src/db/sql-client.js';

/** Every row of every read model, in a stable order, for comparing two builds. */
export async function dumpReadModels(db: SqlExecutor): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const projector of ALL_PROJECTORS) {
    for (const table of projector.tables) {
      const { rows } = await db.query(`select * from ${table}`);
      out[table] = rows.map((row) => JSON.stringify(row)).sort();
    }
  }
  return out;
}
