import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

/** The installation's settings (`settings-installation`). The secret access key is stored sealed. */
export const settingsEvents = {
  RemoteStorageConnected: z.object({
    endpoint: z.string(),
    region: z.string(),
    bucket: z.string(),
    accessKeyId: z.string(),
    secretAccessKey: z.string(),
    prefix: z.string(),
    forcePathStyle: z.boolean(),
  }),
  RemoteStorageDisconnected: z.object({}),
};
export type SettingsEvent = EventsOf<typeof settingsEvents>;
export const parseSettingsEvent = eventParser(settingsEvents);
export const SETTINGS_ID = 'installation';
