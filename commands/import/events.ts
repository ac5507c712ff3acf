import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const IMPORT_SOURCES = ['postgres-url', 'redis-url'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/**
 * An import of data into a database service from a URL (`import-<id>`). The URL is stored sealed (it
 * holds the source's password); `sourceLabel` is the URL without its password, for people to read.
 */
export const importEvents = {
  ImportRequested: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    engine: z.string(),
    source: z.enum(IMPORT_SOURCES),
    sourceLabel: z.string(),
    sourceUrl: z.string(),
  }),
  ImportStarted: z.object({}),
  ImportSucceeded: z.object({}),
  ImportFailed: z.object({ error: z.string() }),
};
export type ImportEvent = EventsOf<typeof importEvents>;
export const parseImportEvent = eventParser(importEvents);
