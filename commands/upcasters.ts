import type { RecordedEvent } from '../src/eventstore/port.js';
import { apiKeyCreatedV1toV2, apiKeyCreatedV2toV3 } from './api-key/upcasters.js';
import { databaseQueryRunV1toV2 } from './database/upcasters.js';
import { notificationChannelCreatedV1toV2, notificationChannelUpdatedV1toV2 } from './notification-channel/upcasters.js';

/** Turns the data of one schema version of an event type into the next version's. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

type Upcastable = Pick<RecordedEvent, 'type' | 'data' | 'schemaVersion'>;

/**
 * `upcasters` is keyed by `<type>@<schemaVersion>`: the upcaster from that version to the next. An event
 * type's current version is one past its highest upcaster; old events are upcast step by step.
 */
export function upcasting(upcasters: Readonly<Record<string, Upcaster>>) {
  return {
    currentSchemaVersion(type: string): number {
      let version = 1;
      while (upcasters[`${type}@${version}`]) version++;
      return version;
    },
    /** The event's data as the current schema expects it. */
    upcast(event: Upcastable): Record<string, unknown> {
      let data = event.data;
      for (let version = event.schemaVersion; ; version++) {
        const next = upcasters[`${event.type}@${version}`];
        if (!next) return data;
        data = next(data);
      }
    },
  };
}

/**
 * Every schema change of every event type. New events are written with the current version, and old ones
 * are upcast before any schema parses them, so events written long ago stay readable forever. An upcaster
 * is never changed or removed once released: events of its version may be in any store.
 */
const UPCASTERS: Record<string, Upcaster> = {
  'ApiKeyCreated@1': apiKeyCreatedV1toV2,
  'ApiKeyCreated@2': apiKeyCreatedV2toV3,
  'DatabaseQueryRun@1': databaseQueryRunV1toV2,
  'NotificationChannelCreated@1': notificationChannelCreatedV1toV2,
  'NotificationChannelUpdated@1': notificationChannelUpdatedV1toV2,
};

export const { currentSchemaVersion, upcast } = upcasting(UPCASTERS);
