import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../src/eventstore/port.js';

/** An event as a test or a seed writes it straight into a store, bypassing the commands. */
export function newEvent(type = 'Tested', data: Record<string, unknown> = {}, actor = 'test'): NewEvent {
  return { id: randomUUID(), type, schemaVersion: 1, data, metadata: { actor, correlationId: randomUUID(), causationId: null } };
}
