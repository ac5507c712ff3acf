import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type AppendResult, type ExpectedRevision, type NewEvent, type RecordedEvent } from '../../src/eventstore/port.js';
import { currentSchemaVersion } from '../upcasters.js';
import type { Evolution } from './aggregate.js';
import { streamOf } from './aggregate.js';
import type { CommandContext } from './command-context.js';
import { conflict } from './domain-error.js';
import type { DomainEvent } from './event.js';
import type { Snapshot } from './state-cache.js';
import { appendEventIds } from './ids.js';

export interface Executed<E> {
  events: E[];
  /** Global position of the append; null when decide had nothing to say. */
  position: string | null;
}

const MAX_ATTEMPTS = 5;
/**
 * How many events a retry reads to find its first attempt's append: from that append's first event where
 * the store finds events by id, else the stream's latest (an older append is then decided again, and the
 * store answers it as a duplicate).
 */
const RECENT_EVENTS = 20;

/**
 * The aggregate's state as the log has it: appends already handed over are waited for, and a state that
 * assumes appends not yet written is never started from.
 */
export async function loadAggregate<S, E extends DomainEvent>(ctx: CommandContext, aggregate: Evolution<S, E>, id: string): Promise<Snapshot<S>> {
  const streamId = streamOf(aggregate.category, id);
  await ctx.locks?.written(streamId);
  const known = ctx.states?.written<S>(streamId);
  let state = known?.state ?? aggregate.initial;
  let revision = known?.revision ?? -1;
  let lastEventId = known?.lastEventId ?? null;
  const recorded = await ctx.store.readStream(streamId, { fromRevision: revision + 1 });
  for (const event of recorded) {
    const parsed = aggregate.parse(event);
    if (parsed) state = aggregate.evolve(state, parsed);
    revision = event.revision;
    lastEventId = event.id;
  }
  if (recorded.length) ctx.states?.confirm(streamId, { state, revision, lastEventId });
  return { state, revision, lastEventId };
}

/**
 * The append an earlier attempt of the same idempotent request made here (its first event has the id this
 * append would give it), or null. Found by id where the store can look one up, else among the latest events.
 */
async function earlierAppend<S, E extends DomainEvent>(
  ctx: CommandContext,
  aggregate: Evolution<S, E>,
  streamId: string,
  idOf: (index: number) => string,
): Promise<Executed<E> | null> {
  let candidates: RecordedEvent[];
  if (ctx.store.findEvent) {
    const first = await ctx.store.findEvent(idOf(0));
    if (!first || first.streamId !== streamId) return null;
    candidates = await ctx.store.readStream(streamId, { fromRevision: first.revision, maxCount: RECENT_EVENTS });
  } else {
    candidates = (await ctx.store.readStream(streamId, { direction: 'backwards', maxCount: RECENT_EVENTS })).reverse();
  }
  const start = candidates.findIndex((e) => e.id === idOf(0));
  if (start < 0) return null;
  const mine: RecordedEvent[] = [];
  for (let i = start; i < candidates.length && candidates[i]!.id === idOf(i - start); i++) mine.push(candidates[i]!);
  const events = mine.map((e) => aggregate.parse(e)).filter((e): e is E => e !== null);
  return { events, position: mine[mine.length - 1]!.position };
}

/**
 * Load, decide, append with the expected revision; on a concurrent write, decide again on fresh state.
 * With an idempotency key, event ids derive from it and an append an earlier attempt already made is
 * returned as it was, without deciding again (the state now includes it and would decide otherwise).
 */
export async function execute<S, E extends DomainEvent>(
  ctx: CommandContext,
  aggregate: Evolution<S, E>,
  id: string,
  decide: (state: S) => E[],
): Promise<Executed<E>> {
  const streamId = streamOf(aggregate.category, id);
  const derivedId = appendEventIds(ctx, streamId);
  if (derivedId) {
    const earlier = await earlierAppend(ctx, aggregate, streamId, derivedId);
    if (earlier) return earlier;
  }

  /** Decides and hands the append to the store; the stream's lock is held only for this. */
  const send = async (attempt: number): Promise<{ events: E[]; append: Promise<AppendResult> | null }> => {
    // The first attempt decides on the tip, appends still being written included. The append expects the
    // tip's last event: if one of those appends is refused, or another writer changed the stream first, it
    // is refused too, and decided again on the log. A refusal or a no-op decided on the tip could be stale,
    // so those are decided again on the log straight away.
    const tip = attempt === 0 ? ctx.states?.tip<S>(streamId) : undefined;
    const fromTip = tip && decidedOn(tip.state, decide);
    const base = fromTip ? tip : await loadAggregate(ctx, aggregate, id);
    const events = fromTip || decide(base.state);
    if (events.length === 0) return { events, append: null };
    const payload: NewEvent[] = events.map((e, i) => ({
      id: derivedId ? derivedId(i) : randomUUID(),
      type: e.type,
      schemaVersion: currentSchemaVersion(e.type),
      data: e.data as Record<string, unknown>,
      metadata: { actor: ctx.actor, correlationId: ctx.correlationId, causationId: ctx.causationId ?? null },
    }));
    const append = ctx.store.append(streamId, payload, expectedOf(base));
    const made: Snapshot<S> = { state: payload.reduce(evolveWith(aggregate), base.state), revision: base.revision + payload.length, lastEventId: payload[payload.length - 1]!.id };
    ctx.states?.assume(streamId, made);
    // Registered before the caller's own handler: the assumed state is settled before anyone decides again.
    // A duplicate (the same events appended before, elsewhere in the stream) leaves nothing to assume.
    append.then(
      (result) => (result.duplicate ? ctx.states?.delete(streamId) : ctx.states?.confirm(streamId, made)),
      () => ctx.states?.delete(streamId),
    );
    ctx.locks?.track(streamId, append);
    return { events, append };
  };

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { events, append } = await (ctx.locks ? ctx.locks.run(streamId, () => send(attempt)) : send(attempt));
    if (!append) return { events, position: null };
    try {
      return { events, position: (await append).position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw conflict('the resource changed concurrently too many times; try again');
}

/** What an append decided on `base` expects: the stream's last event to be the one `base` ends with. */
function expectedOf(base: Snapshot<unknown>): ExpectedRevision {
  if (base.revision < 0) return 'no_stream';
  return base.lastEventId ? { revision: base.revision, lastEventId: base.lastEventId } : base.revision;
}

function decidedOn<S, E>(state: S, decide: (state: S) => E[]): E[] | null {
  try {
    const events = decide(state);
    return events.length > 0 ? events : null;
  } catch {
    return null;
  }
}

/** Folds an appended event into the state the way a load would: stored as JSON, then parsed. */
const evolveWith =
  <S, E extends DomainEvent>(aggregate: Evolution<S, E>) =>
  (state: S, event: NewEvent): S => {
    const parsed = aggregate.parse({ type: event.type, schemaVersion: event.schemaVersion, data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown> });
    return parsed ? aggregate.evolve(state, parsed) : state;
  };

/** The highest of several positions (they compare as text). */
export function latest(...positions: (string | null)[]): string | null {
  return positions.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}
