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
