import type { EventStore } from '../../src/eventstore/port.js';
import type { Keyring } from '../../src/secrets/keyring.js';
import type { AggregateStateCache } from './state-cache.js';

/** What a command handler needs from the outside world. */
export interface CommandContext {
  store: EventStore;
  keyring: Keyring;
  /** `key:<id>`, `cli` or `system`. */
  actor: string;
  correlationId: string;
  states?: AggregateStateCache;
}
