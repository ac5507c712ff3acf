import type { AutoDeploySettings, HookProvider, ListedDelivery } from '../commands/auto-deploy/events.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

interface AutoDeployRow {
  enabled: boolean;
  provider: HookProvider;
  branch: string | null;
  tag_pattern: string | null;
  watch_paths: string[];
  ignore_paths: string[];
  skip_keywords: string[];
}

export async function findAutoDeploySettings(db: SqlExecutor, serviceId: string): Promise<AutoDeploySettings | null> {
  const { rows } = await db.query<AutoDeployRow>('select * from rm_auto_deploy where service_id = $1', [serviceId]);
  const row = rows[0];
  if (!row) return null;
  return {
    enabled: row.enabled,
    provider: row.provider,
    branch: row.branch,
    tagPattern: row.tag_pattern,
    watchPaths: row.watch_paths,
    ignorePaths: row.ignore_paths,
    skipKeywords: row.skip_keywords,
  };
}

interface DeliveryRow {
  provider: HookProvider;
  event: string | null;
  delivery_id: string | null;
  commit_sha: string | null;
  verdict: string;
  deployment_id: string | null;
  at: Date | string;
}

/** Newest first. */
export async function listWebhookDeliveries(db: SqlExecutor, serviceId: string): Promise<ListedDelivery[]> {
  const { rows } = await db.query<DeliveryRow>('select * from rm_webhook_deliveries where service_id = $1 order by revision desc', [serviceId]);
  return rows.map((r) => ({
    provider: r.provider,
    event: r.event,
    deliveryId: r.delivery_id,
    commitSha: r.commit_sha,
    verdict: r.verdict,
    deploymentId: r.deployment_id,
    at: new Date(r.at).toISOString(),
  }));
}

export interface AcceptedDelivery {
  serviceId: string;
  deploymentId: string;
  commitSha: string;
}

/**
 * Deliveries recorded `deployed` in the last day whose deployment was never queued (the append after the record
 * failed and the Git host did not redeliver), of services that still exist.
 */
export async function acceptedDeliveriesNotQueued(db: SqlExecutor): Promise<AcceptedDelivery[]> {
  const { rows } = await db.query<{ service_id: string; deployment_id: string; commit_sha: string }>(
    `select w.service_id, w.deployment_id, w.commit_sha from rm_webhook_deliveries w
      where w.verdict = 'deployed' and w.deployment_id is not null and w.commit_sha is not null
        and w.at > now() - interval '1 day'
        and exists (select 1 from rm_services s where s.id = w.service_id)
        and not exists (select 1 from rm_deployments d where d.id = w.deployment_id)
      order by w.at`,
  );
  return rows.map((r) => ({ serviceId: r.service_id, deploymentId: r.deployment_id, commitSha: r.commit_sha }));
}
