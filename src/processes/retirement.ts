import { parseProjectEvent } from '../../commands/project/events.js';
import { retireProject, retireService, settleStrayReservation, type RetirementDeps } from '../../commands/retirement.js';
import { parseServiceEvent } from '../../commands/service/events.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { importIdsOf } from '../../projections/import-queries.js';
import { reservationsOwnedBy, strayReservations } from '../../projections/reservation-queries.js';
import { pendingRetirements } from '../../projections/retirement-queries.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../logger.js';
import type { Reactor } from './reactor.js';
import type { PushRepositories } from '../git/push-repositories.js';

export const RETIREMENT_ACTOR = 'system:retirement';

/** What the command side's retirement needs, from the read models of this Slipway. */
export function retirementDeps(app: { db: SqlExecutor; settle(position: string | null): Promise<void>; pushRepositories?: PushRepositories }): RetirementDeps {
  return {
    removePushedRepository: async (serviceId) => app.pushRepositories?.remove(serviceId),
    settle: (position) => app.settle(position),
    reservationsOwnedBy: (ownerId) => reservationsOwnedBy(app.db, ownerId),
    importsOf: (serviceId) => importIdsOf(app.db, serviceId),
  };
}

export interface RetirementOptions {
  /** Commands run in contexts derived from this one (actor `system:retirement`), caused by the deletion. */
  cmd: CommandContext;
  db: SqlExecutor;
  settle(position: string | null): Promise<void>;
  pushRepositories?: PushRepositories;
  /** A reservation whose owner never came into existence is released once older than this. */
  graceMs: number;
  log: Logger;
  now?: () => number;
}

/**
 * The retirement process manager. On `ServiceDeleted` / `ProjectDeleted` it retires the aggregate
 * (commands/retirement.ts; the deleting request normally did so already, and then this finds nothing left
 * to do). Its reconcile repairs what the log alone cannot: a deletion whose retirement was cut short (a
 * crash), a reservation whose owner never came into existence (a creation that died after reserving) once
 * older than the grace period, and a reservation a deleted owner took after its retirement.
 * Reservations of live owners are never touched.
 */
export function createRetirement(options: RetirementOptions): Reactor {
  const deps = retirementDeps(options);
  const now = options.now ?? Date.now;
  const ctx: CommandContext = { ...options.cmd, actor: RETIREMENT_ACTOR };
  const attempt = async (what: Record<string, unknown>, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      // The next reconcile tries again: the deletion stays pending until its Retired event exists.
      options.log.warn('retirement step failed; it is retried', { ...what, error: String(error) });
    }
  };

  return {
    name: 'retirement',
    async handle(batch: readonly RecordedEvent[]) {
      for (const recorded of batch) {
        const serviceEvent = parseServiceEvent(recorded);
        const projectEvent = serviceEvent ? null : parseProjectEvent(recorded);
        const id = aggregateIdOf(recorded.streamId);
        if (serviceEvent?.type === 'ServiceDeleted') await attempt({ service: id }, () => retireService(ctx, deps, id));
        else if (projectEvent?.type === 'ProjectDeleted') await attempt({ project: id }, () => retireProject(ctx, deps, id));
      }
    },
    async reconcile() {
      for (const pending of await pendingRetirements(options.db)) {
        const id = pending.aggregate_id;
        if (pending.aggregate_type === 'service') await attempt({ service: id }, () => retireService(ctx, deps, id));
        else await attempt({ project: id }, () => retireProject(ctx, deps, id));
      }
      for (const row of await strayReservations(options.db, new Date(now() - options.graceMs))) {
        const held = { kind: row.kind, value: row.value, owner: row.owner, ownerId: row.owner_id, ownerType: row.owner_type };
        await attempt({ reservation: `${row.kind}-${row.value}`, owner: row.owner }, async () => {
          const outcome = await settleStrayReservation(ctx, deps, held);
          if (outcome === 'reaped') options.log.info('released a reservation whose owner was never created', { kind: row.kind, value: row.value, owner: row.owner });
        });
      }
    },
  };
}
