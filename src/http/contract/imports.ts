import { z } from 'zod';
import { IMPORT_SOURCES, type ImportSource } from '../../../commands/import/events.js';
import { sourceUrlProblem } from '../../engines/import-sources.js';
import { endpoint } from './endpoint.js';
import { id, nullableTimestamp, timestamp } from './common.js';
import { databaseEngine } from './database.js';

const base = '/api/services/:serviceId/database';

/** The URL schemes each source accepts, and the engines of the services it can go into. */
export const SOURCES: Record<ImportSource, { schemes: string[]; engines: string[] }> = {
  'postgres-url': { schemes: ['postgres:', 'postgresql:'], engines: ['postgres', 'timeseries'] },
  'redis-url': { schemes: ['redis:', 'rediss:'], engines: ['redis'] },
};

const schemesOf = (source: ImportSource) => SOURCES[source].schemes.map((s) => `${s}//`).join(' or ');

const bodyFor = (source: ImportSource) =>
  z.object({
    sourceUrl: z
      .string()
      .max(4096)
      .superRefine((value, ctx) => {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          return void ctx.addIssue({ code: 'custom', message: `must be a ${schemesOf(source)} URL with a host` });
        }
        if (!SOURCES[source].schemes.includes(url.protocol)) return void ctx.addIssue({ code: 'custom', message: `must be a ${schemesOf(source)} URL with a host` });
        const problem = sourceUrlProblem(source, url);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({
        description: `A ${schemesOf(source)} URL with one host, with the password if the source needs one (it is never shown or logged). The host is a service of the project by its name, or a destination the outbound policy allows (400 \`forbidden_destination\` otherwise); it is reached from a helper container on the project's network, where 127.0.0.1 is that container.`,
      }),
  });

const source = z.enum(IMPORT_SOURCES);
const status = z.enum(['running', 'succeeded', 'failed']);

export const dataImport = z
  .object({
    id,
    serviceId: id,
    engine: databaseEngine,
    source,
    sourceLabel: z.string().meta({ description: 'The source URL without its user name and password and without any parameter whose name suggests a secret.' }),
    status,
    error: z.string().nullable(),
    createdAt: timestamp,
    startedAt: timestamp,
    finishedAt: nullableTimestamp,
  })
  .meta({ id: 'DataImport' });

const importFrom = (from: ImportSource, operationId: string, summary: string) =>
  endpoint({
    method: 'post',
    path: `${base}/import/${from}`,
    operationId,
    tag: 'Imports',
    summary,
    description: `Into a ${SOURCES[from].engines.join(' or ')} service that is running (409 otherwise), one import at a time (409 while one runs, or while a backup is being restored into it). The import runs in the background: it is answered \`running\`; list the imports to see it finish.`,
    access: 'write',
    body: bodyFor(from),
    response: z.object({ result: z.object({ id, status, source, createdAt: timestamp }) }),
  });

export const importsApi = {
  list: endpoint({
    method: 'get',
    path: `${base}/imports`,
    operationId: 'listImports',
    tag: 'Imports',
    summary: 'A database service’s data imports, newest first',
    access: 'read',
    response: z.object({ imports: z.array(dataImport) }),
    errors: [400],
  }),
  postgresUrl: importFrom('postgres-url', 'importFromPostgresUrl', 'Copy the data of another Postgres database into this one'),
  redisUrl: importFrom('redis-url', 'importFromRedisUrl', 'Copy the keys of another Redis server into this one'),
};

/** Each source's endpoint, as the route registers them. */
export const importEndpoints: Record<ImportSource, (typeof importsApi)['postgresUrl']> = {
  'postgres-url': importsApi.postgresUrl,
  'redis-url': importsApi.redisUrl,
};
