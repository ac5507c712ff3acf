import type { EventStore, RecordedEvent } from '../../src/eventstore/port.js';
import type { Keyring } from '../../src/secrets/keyring.js';
import type { AggregateStateCache } from './state-cache.js';
import type { StreamLocks } from './stream-locks.js';

/** What a command handler needs from the outside world. */
export interface CommandContext {
  store: EventStore;
  keyring: Keyring;
  /** `key:<id>`, `cli`, `system` or `system:<process manager>`. */
  actor: string;
  /** The HTTP request id, or the correlation id of the event a process manager reacts to. */
  correlationId: string;
  /** The id of the event a process manager reacts to; null for a request. */
  causationId?: string | null;
  /** A client's Idempotency-Key: event ids (and new aggregate ids) derive from it, so a retry appends nothing. */
  idempotencyKey?: string | null;
  /** Per-context counters behind the ids derived from `idempotencyKey` (commands/shared/ids.ts). */
  counters?: Map<string, number>;
  states?: AggregateStateCache;
  locks?: StreamLocks;
}

/** The context for what a process manager does in reaction to `event`: same correlation, caused by it. */
export function causedBy(ctx: CommandContext, event: Pick<RecordedEvent, 'id' | 'metadata'>): CommandContext {
  return { ...ctx, correlationId: event.metadata.correlationId, causationId: event.id };
}
