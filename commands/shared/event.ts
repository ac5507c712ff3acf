import type { z } from 'zod';
import type { RecordedEvent } from '../../src/eventstore/port.js';

/** A domain event as decide returns it and evolve consumes it. */
export interface DomainEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}

export type EventSchemas = Record<string, z.ZodType<Record<string, unknown>>>;

export type EventsOf<S extends EventSchemas> = {
  [K in keyof S & string]: DomainEvent<K, z.output<S[K]>>;
}[keyof S & string];

/** Turns a recorded event back into a typed domain event, checking its data against the schema. */
export function eventParser<S extends EventSchemas>(schemas: S) {
  return (recorded: Pick<RecordedEvent, 'type' | 'data'>): EventsOf<S> | null => {
    const schema = schemas[recorded.type];
    if (!schema) return null;
    return { type: recorded.type, data: schema.parse(recorded.data) } as EventsOf<S>;
  };
}
