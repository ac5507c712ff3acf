import { countParked } from './catch-up/parking.js';
import { findCluster } from '../projections/cluster-queries.js';
import { clusterHealth } from './cluster/cluster-health.js';
import { failingNotificationChannels } from '../projections/notification-channel-queries.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { ManagerHost } from './cluster/manager-host.js';
import type { SqlClient } from './db/sql-client.js';
import type { EventStore } from './eventstore/port.js';
import type { ProcessManagers } from './processes/process-managers.js';
import type { ProxyReconciler } from './processes/proxy-reconciler.js';
import type { ContainerRuntime } from './runtime/container-runtime.js';
import type { Health } from './shared/health-answer.js';
import { earliest } from './eventstore/position.js';
import { horizonWarning, readHorizon } from './eventstore/postgres-horizon.js';

/** What the health answer is read from. */
export interface HealthDeps {
  db: SqlClient;
  store: EventStore;
  runner: ProjectionRunner;
  processManagers: Pick<ProcessManagers, 'checkpoints'>;
  runtime: Pick<ContainerRuntime, 'ping'>;
  proxy: Pick<ProxyReconciler, 'health'>;
  managerHost: ManagerHost;
}

const LAG_CAP = 1000;

/**
 * How far each position is behind the head, from one read of the log after the lowest of them (not one
 * read per follower). A count from a read that hit the cap is a lower bound.
 */
async function lagsOf(app: HealthDeps, positions: readonly (string | null)[]) {
  const events = await app.store.readAll({ after: earliest(positions) || null, maxCount: LAG_CAP });
  const capped = events.length === LAG_CAP;
  return (position: string | null) => {
    const after = position ? events.filter((e) => e.position > position).length : events.length;
    return { behind: after, behindAtLeast: capped };
  };
}

async function oldestTransactionSeconds(app: HealthDeps): Promise<number | null> {
  try {
    const { rows } = await app.db.query<{ s: number | null }>(
      `select extract(epoch from now() - min(xact_start))::float8 as s from pg_stat_activity
       where backend_xid is not null and pid <> pg_backend_pid()`,
    );
    return rows[0]?.s === null || rows[0]?.s === undefined ? 0 : Math.round(rows[0].s * 10) / 10;
  } catch {
    return null;
  }
}

async function warnings(app: HealthDeps): Promise<string[]> {
  const failing = (await failingNotificationChannels(app.db)).map(
    (c) => `notification channel ${c.name} (${c.id}) is failing: ${c.failures_since_success} attempts in a row failed, the last with: ${c.last_error ?? 'no answer'}`,
  );
  if (app.db.kind !== 'postgres' || app.store.kind !== 'postgres') return failing;
  const held = horizonWarning(await readHorizon(app.db));
  return held ? [held, ...failing] : failing;
}

/** What an operator needs to know to trust the read models and the process managers. */
export async function health(app: HealthDeps): Promise<Health> {
  const { rows } = await app.db.query<{ projector: string; version: number; position: string }>('select projector, version, position from proj_checkpoints');
  const checkpoints = new Map(rows.map((r) => [r.projector, r]));
  const parked = await countParked(app.db);
  const managers = await app.processManagers.checkpoints();
  const lag = await lagsOf(app, [...app.runner.projectors.map((p) => checkpoints.get(p.name)?.position || null), ...managers.map((m) => m.position)]);
  const projectors = app.runner.projectors.map((p) => {
    const row = checkpoints.get(p.name);
    return {
      name: p.name,
      version: p.version,
      ...app.runner.stateOf(p.name),
      position: row?.position || null,
      ...lag(row?.position || null),
      parked: parked.get(p.name) ?? 0,
    };
  });
  const processManagers = managers.map(({ name, position, state, error, pausedSince }) => ({
    name,
    position,
    ...lag(position),
    state,
    error,
    pausedSince: pausedSince?.toISOString() ?? null,
  }));
  const docker = await app.runtime.ping().then(
    () => ({ ok: true, detail: 'the Docker engine answers' }),
    (error: unknown) => ({ ok: false, detail: String(error instanceof Error ? error.message : error) }),
  );
  const proxy = await app.proxy.health();
  const cluster = (await findCluster(app.db))
    ? await clusterHealth(app.db, await app.managerHost.docker()).catch((error: unknown) => ({
        ok: false,
        detail: `the Swarm manager does not answer: ${error instanceof Error ? error.message : String(error)}`,
        nodesDown: [],
        servicesBelowReplicas: [],
      }))
    : null;
  const parkedTotal = [...parked.values()].reduce((a, b) => a + b, 0);
  return {
    ok: parkedTotal === 0 && projectors.every((p) => p.state === 'live') && processManagers.every((m) => m.state === 'running') && docker.ok && proxy.ok && (cluster?.ok ?? true),
    projectors,
    processManagers,
    parked: parkedTotal,
    rebuild: app.runner.rebuildProgress,
    oldestTransactionSeconds: await oldestTransactionSeconds(app),
    warnings: await warnings(app),
    docker,
    proxy,
    cluster,
  };
}
