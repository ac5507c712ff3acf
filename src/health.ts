import type { ProjectorState } from '../projections/runner.js';
import { countParked } from '../projections/parked.js';
import type { RebuildProgress } from '../projections/rebuild.js';
import type { Slipway } from './slipway.js';

export interface FollowerStatus {
  name: string;
  /** Events in the log after its checkpoint (capped: `behindAtLeast` says when there are more). */
  behind: number;
  behindAtLeast: boolean;
  position: string | null;
}

export interface Health {
  ok: boolean;
  projectors: (FollowerStatus & { version: number; state: ProjectorState; parked: number })[];
  processManagers: FollowerStatus[];
  parked: number;
  rebuild: RebuildProgress | null;
  /** Seconds the oldest open transaction has held back the read horizon (null where it cannot be known). */
  oldestTransactionSeconds: number | null;
  docker: { ok: boolean; detail: string };
  proxy: { ok: boolean; detail: string };
}

const LAG_CAP = 1000;

async function behind(app: Slipway, position: string | null): Promise<{ behind: number; behindAtLeast: boolean }> {
  const events = await app.store.readAll({ after: position || null, maxCount: LAG_CAP });
  return { behind: events.length, behindAtLeast: events.length === LAG_CAP };
}

async function oldestTransactionSeconds(app: Slipway): Promise<number | null> {
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

/** What an operator needs to know to trust the read models and the process managers. */
export async function health(app: Slipway): Promise<Health> {
  const { rows } = await app.db.query<{ projector: string; version: number; position: string }>('select projector, version, position from proj_checkpoints');
  const checkpoints = new Map(rows.map((r) => [r.projector, r]));
  const parked = await countParked(app.db);
  const projectors = await Promise.all(
    app.runner.projectors.map(async (p) => {
      const row = checkpoints.get(p.name);
      return {
        name: p.name,
        version: p.version,
        state: app.runner.rebuildState(p.name),
        position: row?.position || null,
        ...(await behind(app, row?.position ?? null)),
        parked: parked.get(p.name) ?? 0,
      };
    }),
  );
  const processManagers = await Promise.all(
    (await app.processManagers.checkpoints()).map(async ({ name, position }) => ({ name, position, ...(await behind(app, position)) })),
  );
  const docker = await app.runtime.ping().then(
    () => ({ ok: true, detail: 'the Docker engine answers' }),
    (error: unknown) => ({ ok: false, detail: String(error instanceof Error ? error.message : error) }),
  );
  const proxy = await app.proxy.health();
  const parkedTotal = [...parked.values()].reduce((a, b) => a + b, 0);
  return {
    ok: parkedTotal === 0 && projectors.every((p) => p.state === 'live') && docker.ok && proxy.ok,
    projectors,
    processManagers,
    parked: parkedTotal,
    rebuild: app.runner.rebuildProgress,
    oldestTransactionSeconds: await oldestTransactionSeconds(app),
    docker,
    proxy,
  };
}
