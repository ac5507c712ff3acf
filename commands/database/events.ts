import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

const target = { serviceId: z.string(), projectId: z.string(), engine: z.string() };
/** Column names only: row values may hold personal data and are never recorded. */
const row = { ...target, table: z.string(), primaryKey: z.record(z.string(), z.unknown()).nullable(), columns: z.array(z.string()) };

/**
 * What was run against a database service through the API, on `database-<serviceId>`. Each is recorded
 * before the engine runs it, so a statement the engine then refuses or that times out is on record too.
 * A statement is kept sealed under the service's data key (shredded with the service) and, for auditors,
 * masked by a lexer of the engine's language (statement-redaction.ts; v1 kept it in clear; its upcaster masks it).
 */
export const databaseEvents = {
  DatabaseQueryRun: z.object({ ...target, statement: z.string(), sealedStatement: z.string().nullable() }),
  DatabaseRowInserted: z.object(row),
  DatabaseRowUpdated: z.object(row),
  DatabaseRowDeleted: z.object(row),
};
export type DatabaseEvent = EventsOf<typeof databaseEvents>;
export const parseDatabaseEvent = eventParser(databaseEvents);
export const DATABASE_CATEGORY = 'database';
