import type { SqlExecutor } from '../src/db/sql-client.js';

export interface DeploymentActor {
  /** `key:<id>`, `cli`, `system:…`. */
  actor: string;
  /** The key's name for a `key:<id>` actor (revoked or not); null for any other actor. */
  name: string | null;
}

/**
 * Who started each deployment: the actor of its stream's first event, by deployment id. Read from the audit
 * log, which keeps every event's actor; a deployment it does not have yet is left out.
 */
export async function deploymentActors(db: SqlExecutor, deploymentIds: readonly string[]): Promise<Map<string, DeploymentActor>> {
  if (deploymentIds.length === 0) return new Map();
  const { rows } = await db.query<{ stream_id: string; actor: string; name: string | null }>(
    `select a.stream_id, a.actor, k.name from rm_audit_log a
       left join rm_api_keys k on a.actor like 'key:%' and k.id = substr(a.actor, 5)
      where a.stream_id = any($1::text[]) and a.revision = 0`,
    [deploymentIds.map((id) => `deployment-${id}`)],
  );
  return new Map(rows.map((r) => [r.stream_id.slice('deployment-'.length), { actor: r.actor, name: r.name }]));
}
