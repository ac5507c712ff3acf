import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type NewEvent } from '../../src/eventstore/port.js';
import { currentSchemaVersion } from '../upcasters.js';
import type { Aggregate } from './aggregate.js';
import { streamOf } from './aggregate.js';
import type { CommandContext } from './command-context.js';
import { conflict } from './domain-error.js';
import type { DomainEvent } from './event.js';

export interface Executed<E> {
  events: E[];
  /** Global position of the append; null when decide had nothing to say. */
  position: string | null;
}

const MAX_ATTEMPTS = 5;

export async function loadAggregate<S, E extends DomainEvent>(ctx: CommandContext, aggregate: Aggregate<S, E>, id: string) {
  const streamId = streamOf(aggregate.category, id);
  const cached = ctx.states?.get<S>(streamId);
  let state = cached?.state ?? aggregate.initial;
  let revision = cached?.revision ?? -1;
  const recorded = await ctx.store.readStream(streamId, { fromRevision: revision + 1 });
  for (const event of recorded) {
    const parsed = aggregate.parse(event);
    if (parsed) state = aggregate.evolve(state, parsed);
    revision = event.revision;
  }
  if (recorded.length) ctx.states?.set(streamId, state, revision);
  return { state, revision };
}

/** Load, decide, append with the expected revision; on a concurrent write, decide again on fresh state. */
export async function execute<S, E extends DomainEvent>(
  ctx: CommandContext,
  aggregate: Aggregate<S, E>,
  id: string,
  decide: (state: S) => E[],
): Promise<Executed<E>> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await loadAggregate(ctx, aggregate, id);
    const events = decide(state);
    if (events.length === 0) return { events, position: null };
    const payload: NewEvent[] = events.map((e) => ({
      id: randomUUID(),
      type: e.type,
      schemaVersion: currentSchemaVersion(e.type),
      data: e.data as Record<string, unknown>,
      metadata: { actor: ctx.actor, correlationId: ctx.correlationId, causationId: ctx.causationId ?? null },
    }));
    try {
      const result = await ctx.store.append(streamOf(aggregate.category, id), payload, revision < 0 ? 'no_stream' : revision);
      return { events, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw conflict('the resource changed concurrently too many times; try again');
}

/** The highest of several positions (they compare as text). */
export function latest(...positions: (string | null)[]): string | null {
  return positions.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
}
