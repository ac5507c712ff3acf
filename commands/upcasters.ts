import type { RecordedEvent } from '../src/eventstore/port.js';

/** Turns the data of one schema version of an event type into the next version's. */
type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/**
 * Keyed by `<type>@<schemaVersion>`: the upcaster from that version to the next. An event type's current
 * version is one past its highest upcaster; new events are written with it, and old ones are upcast step
 * by step before any schema parses them, so events written long ago stay readable forever.
 */
const UPCASTERS: Record<string, Upcaster> = {};

export function currentSchemaVersion(type: string): number {
  let version = 1;
  while (UPCASTERS[`${type}@${version}`]) version++;
  return version;
}

type Upcastable = Pick<RecordedEvent, 'type' | 'data'> & { schemaVersion?: number };

/** The event's data as the current schema expects it. */
export function upcast(event: Upcastable): Record<string, unknown> {
  let data = event.data;
  for (let version = event.schemaVersion ?? 1; ; version++) {
    const next = UPCASTERS[`${event.type}@${version}`];
    if (!next) return data;
    data = next(data);
  }
}
