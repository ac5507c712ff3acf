import type { z } from 'zod';
import type { RecordedEvent } from '../../src/eventstore/port.js';
import { upcast } from '../upcasters.js';

/** A domain event as decide returns it and evolve consumes it. */
export interface DomainEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}

export type EventSchemas = Record<string, z.ZodType<Record<string, unknown>>>;

export type EventsOf<S extends EventSchemas> = {
  [K in keyof S & string]: DomainEvent<K, z.output<S[K]>>;
}[keyof S & string];

/** The schema version is required: without it, data of a later version would be upcast as if it were version 1. */
type Recorded = Pick<RecordedEvent, 'type' | 'data' | 'schemaVersion'>;

/**
 * Turns a recorded event back into a typed domain event: upcast to the current schema version, then
 * checked against the schema.
 * Several read models parse the same event; each is checked once.
 */
export function eventParser<S extends EventSchemas>(schemas: S) {
  const parsed = new WeakMap<Recorded, EventsOf<S> | null>();
  return (recorded: Recorded): EventsOf<S> | null => {
    if (parsed.has(recorded)) return parsed.get(recorded)!;
    const schema = schemas[recorded.type];
    const event = schema ? ({ type: recorded.type, data: schema.parse(upcast(recorded)) } as EventsOf<S>) : null;
    parsed.set(recorded, event);
    return event;
  };
}
