import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { AggregateStateCache } from '../../commands/shared/state-cache.js';
import { StreamLocks } from '../../commands/shared/stream-locks.js';
import type { EventStore } from '../eventstore/port.js';
import type { Keyring } from '../secrets/keyring.js';

export interface CommandContextOptions {
  /** The HTTP request id (random for the CLI and the processes). */
  correlationId?: string;
  /** Makes a retry derive the same event and aggregate ids as its first attempt. */
  idempotencyKey?: string | null;
}

export type CommandContexts = (actor: string, options?: CommandContextOptions) => CommandContext;

/** One state cache and one set of stream locks for every command this process runs. */
export function commandContexts(store: EventStore, keyring: Keyring): CommandContexts {
  const states = new AggregateStateCache();
  const locks = new StreamLocks();
  return (actor, options = {}) => ({
    store,
    keyring,
    actor,
    correlationId: options.correlationId ?? randomUUID(),
    causationId: null,
    idempotencyKey: options.idempotencyKey ?? null,
    counters: new Map<string, number>(),
    states,
    locks,
  });
}
