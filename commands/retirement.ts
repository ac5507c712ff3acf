import type { RecordedEvent } from '../src/eventstore/port.js';
import { project } from './project/aggregate.js';
import { reservation, reservationId, type ReservationKind } from './reservation/aggregate.js';
import { release } from './reservation/handlers.js';
import { service } from './service/aggregate.js';
import { streamOf, type Evolution } from './shared/aggregate.js';
import { causedBy, type CommandContext } from './shared/command-context.js';
import type { DomainEvent } from './shared/event.js';
import { execute, latest, loadAggregate } from './shared/execute.js';

/**
 * Retirement: what follows the deletion of a project or a service. Everything it held is given back —
 * its reservations (slug, service name, host port, hostnames), its data key (crypto-shredding), its place
 * in its project — and then `ServiceRetired` / `ProjectRetired` is recorded. Every step is idempotent, so
 * the deleting command, the retirement process manager and its reconcile may all run it, at once or after
 * a crash half-way. What to release comes from the reservations read model once it includes the deletion,
 * never from a state read before the deletion was appended.
 */

export interface HeldReservation {
  kind: ReservationKind;
  value: string;
  owner: string;
}

export interface RetirementDeps {
  /** Resolves once the read models include `position`; throws if they do not in time. */
  settle(position: string | null): Promise<void>;
  /** What the reservations read model says `ownerId` holds, under its own id and under `<ownerId>/…`. */
  reservationsOwnedBy(ownerId: string): Promise<HeldReservation[]>;
  /** The ids of the imports into the service (each sealed its source URL under a data key of its own). */
  importsOf(serviceId: string): Promise<string[]>;
  /** Deletes what `git push` stored for the service (absent where nothing is stored). */
  removePushedRepository?(serviceId: string): Promise<void>;
}

export interface Retirement {
  /** Of the last event appended; null when there was nothing left to do. */
  position: string | null;
  /** False when the aggregate is not deleted (live, or never created): nothing was done. */
  deleted: boolean;
}

/** The folded state of a stream and the recorded event that deleted it, if one did. */
async function deletionOf<S, E extends DomainEvent>(ctx: CommandContext, aggregate: Evolution<S, E>, id: string, deletedType: E['type']) {
  let state = aggregate.initial;
  let deletion: RecordedEvent | null = null;
  for (const recorded of await ctx.store.readStream(streamOf(aggregate.category, id))) {
    const event = aggregate.parse(recorded);
    if (!event) continue;
    state = aggregate.evolve(state, event);
    if (event.type === deletedType) deletion = recorded;
  }
  return { state, deletion };
}

async function releaseEverythingOf(ctx: CommandContext, deps: RetirementDeps, ownerId: string): Promise<string | null> {
  let position: string | null = null;
  for (const held of await deps.reservationsOwnedBy(ownerId)) {
    // Released only if `owner` still holds it: a value released and taken by another since stays theirs.
    position = latest(position, (await release(ctx, held.kind, held.value, held.owner)).position);
  }
  return position;
}

/** Releases what a deleted service held, shreds its data key and its imports', detaches it from its project, records `ServiceRetired`. */
export async function retireService(ctx: CommandContext, deps: RetirementDeps, id: string): Promise<Retirement> {
  const { state, deletion } = await deletionOf(ctx, service, id, 'ServiceDeleted');
  if (state.status !== 'deleted' || !state.service || !deletion) return { position: null, deleted: false };
  const caused = causedBy(ctx, deletion);
  // Every reservation taken before the deletion is then in the read model.
  await deps.settle(deletion.position);
  const released = await releaseEverythingOf(caused, deps, id);
  await ctx.keyring.shred(id);
  for (const importId of await deps.importsOf(id)) await ctx.keyring.shred(`import-${importId}`);
  await deps.removePushedRepository?.(id);
  const detached = await execute(caused, project, state.service.projectId, (s) => project.decide.detach(s, id));
  const retired = await execute(caused, service, id, service.decide.retire);
  return { position: latest(released, detached.position, retired.position), deleted: true };
}

/** Releases what a deleted project held (its slug), records `ProjectRetired`. Its services were retired before it was deleted. */
export async function retireProject(ctx: CommandContext, deps: RetirementDeps, id: string): Promise<Retirement> {
  const { state, deletion } = await deletionOf(ctx, project, id, 'ProjectDeleted');
  if (state.status !== 'deleted' || !deletion) return { position: null, deleted: false };
  const caused = causedBy(ctx, deletion);
  await deps.settle(deletion.position);
  const released = await releaseEverythingOf(caused, deps, id);
  const retired = await execute(caused, project, id, project.decide.retire);
  return { position: latest(released, retired.position), deleted: true };
}

export interface OwnedReservation extends HeldReservation {
  ownerType: 'project' | 'service';
  /** The owner's aggregate id (for a custom domain, the service's). */
  ownerId: string;
}

export type StrayOutcome = 'reaped' | 'retired' | 'owner-live' | 'gone';

/**
 * A reservation whose owner the read models do not know as live. Its owner's stream decides: never created
 * (a creation that died after reserving) → the reservation is released; deleted → the owner is retired
 * (again: this also gives back what was reserved after its retirement); live → it is left alone.
 */
export async function settleStrayReservation(ctx: CommandContext, deps: RetirementDeps, held: OwnedReservation): Promise<StrayOutcome> {
  const status =
    held.ownerType === 'project'
      ? (await loadAggregate(ctx, project, held.ownerId)).state.status
      : (await loadAggregate(ctx, service, held.ownerId)).state.status;
  if (status === 'live') return 'owner-live';
  if (status === 'deleted') {
    if (held.ownerType === 'project') await retireProject(ctx, deps, held.ownerId);
    else await retireService(ctx, deps, held.ownerId);
    return 'retired';
  }
  const [last] = await ctx.store.readStream(streamOf(reservation.category, reservationId(held.kind, held.value)), { direction: 'backwards', maxCount: 1 });
  const event = last ? reservation.parse(last) : null;
  if (!last || event?.type !== 'Reserved' || event.data.owner !== held.owner) return 'gone';
  await release(causedBy(ctx, last), held.kind, held.value, held.owner);
  return 'reaped';
}
