import type { SqlExecutor } from '../src/db/sql-client.js';

export interface ReleaseRow {
  id: string;
  service_id: string;
  version: number;
  deployment_id: string;
  image_id: string;
  image_ref: string;
  commit_sha: string | null;
  commit_message: string | null;
  available: boolean;
  created_at: Date | string;
  /** Whether the service runs this release now. */
  current: boolean;
}

/** Newest first. */
export async function listReleasesOf(db: SqlExecutor, serviceId: string): Promise<ReleaseRow[]> {
  const { rows } = await db.query<ReleaseRow>(
    `select r.*, coalesce(s.current_deployment_id = r.deployment_id, false) as current
       from rm_releases r left join rm_services s on s.id = r.service_id
      where r.service_id = $1 order by r.version desc`,
    [serviceId],
  );
  return rows;
}

/** The image ids some available release still runs from: images the start-up sweep keeps. */
export async function keptImageIds(db: SqlExecutor): Promise<Set<string>> {
  const { rows } = await db.query<{ image_id: string }>('select distinct image_id from rm_releases where available');
  return new Set(rows.map((r) => r.image_id));
}

/** Deployments of existing services that went live (succeeded, or rolled back after) with no release in the read model. */
export async function liveDeploymentsWithoutRelease(db: SqlExecutor): Promise<{ id: string; service_id: string }[]> {
  const { rows } = await db.query<{ id: string; service_id: string }>(
    `select d.id, d.service_id from rm_deployments d join rm_services s on s.id = d.service_id
      where d.status in ('succeeded', 'rolled_back')
        and not exists (select 1 from rm_releases r where r.deployment_id = d.id)
      order by d.created_at, d.id`,
  );
  return rows;
}
