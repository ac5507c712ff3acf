import { deploymentActors } from '../../projections/deployment-actor-queries.js';
import type { DeploymentRow } from '../../projections/deployment-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { presentDeployment, presentQueuedDeployment } from './presenters.js';

/** Deployments as the API answers them, each with who started it (one query for the whole list). */
export async function presentDeployments(db: SqlExecutor, rows: readonly DeploymentRow[]) {
  const actors = await deploymentActors(db, rows.map((r) => r.id));
  return rows.map((row) => presentDeployment(row, actors.get(row.id)));
}

/** One deployment with who started it; `queued` as it was queued (see presentQueuedDeployment). */
export async function presentOneDeployment(db: SqlExecutor, row: DeploymentRow, { queued = false } = {}) {
  const by = (await deploymentActors(db, [row.id])).get(row.id);
  return queued ? presentQueuedDeployment(row, by) : presentDeployment(row, by);
}
