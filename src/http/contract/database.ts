import { z } from 'zod';
import { ENGINES } from '../../shared/database-engine.js';
import { endpoint } from './endpoint.js';
import { okBody } from './common.js';

const base = '/api/services/:serviceId/database';

export const databaseEngine = z.enum(ENGINES);

const tableId = z.string().min(3).max(512).meta({ description: 'The table’s id, `<schema>.<name>`, as the table list gives it.' });
const count = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    .optional()
    .transform((n) => n ?? fallback);
const values = z.record(z.string(), z.unknown());
const keyed = {
  table: tableId,
  primaryKey: values.refine((k) => Object.keys(k).length > 0, 'must name the primary key columns').meta({ description: 'The row’s primary key: each key column and its value.' }),
};

const table = z
  .object({ id: z.string().meta({ description: '`<schema>.<name>`.' }), name: z.string(), schema: z.string(), rowCount: z.number().int() })
  .meta({ id: 'DatabaseTable' });
const row = z.record(z.string(), z.unknown()).meta({ id: 'DatabaseRow', description: 'One row (or document, or key): each column’s value, by column name.' });
const column = z.object({ name: z.string(), type: z.string().meta({ description: 'The engine’s own type name, such as `integer` or `UInt64`.' }) });
const tableColumn = column.extend({ primary: z.boolean().meta({ description: 'Part of the primary key.' }) }).meta({ id: 'DatabaseColumn' });

export const postgresTls = z
  .object({
    active: z.boolean().meta({ description: 'The running database serves TLS with a certificate Slipway issued.' }),
    caCertAvailable: z.boolean(),
    publicHostname: z.string().meta({ description: 'The name to connect to and verify (`sslmode=verify-full`): the public hostname, else the public IP; `localhost` when the database is bound to this host only (`databasePublicEnabled: false`).' }),
    publicPort: z.number().int(),
  })
  .meta({ id: 'PostgresTls' });

const readNote = 'The database must be running (409 otherwise); 503 while it cannot be reached, 422 when the engine refuses.';

export const databaseApi = {
  tables: endpoint({
    method: 'get',
    path: `${base}/tables`,
    operationId: 'listDatabaseTables',
    tag: 'Databases',
    summary: 'The tables (collections, keys) of a database service, with their row counts',
    description: readNote,
    access: 'read',
    query: z.object({
      database: z
        .string()
        .regex(/^\d{1,2}$/, 'must be a logical database number 0-15')
        .transform(Number)
        .pipe(z.number().max(15))
        .optional()
        .meta({ description: 'The redis logical database (0–15); other engines ignore it.' }),
    }),
    response: z.object({ engine: databaseEngine, tables: z.array(table) }),
    errors: [409, 422, 503],
  }),
  rows: endpoint({
    method: 'get',
    path: `${base}/rows`,
    operationId: 'listDatabaseRows',
    tag: 'Databases',
    summary: 'A page of a table’s rows, with its columns and total row count',
    description: readNote,
    access: 'read',
    query: z.object({
      table: tableId,
      limit: count(1, 1000, 100).meta({ description: 'Rows per page, 1–1000; 100 when not given.' }),
      offset: count(0, 1_000_000_000, 0).meta({ description: 'Rows to skip; 0 when not given.' }),
    }),
    response: z.object({
      engine: databaseEngine,
      table: z.string(),
      columns: z.array(tableColumn),
      rows: z.array(row),
      limit: z.number().int(),
      offset: z.number().int(),
      total: z.number().int(),
    }),
    errors: [409, 422, 503],
  }),
  query: endpoint({
    method: 'post',
    path: `${base}/query`,
    operationId: 'runDatabaseQuery',
    tag: 'Databases',
    summary: 'Run a statement (SQL, or the engine’s own command language) and get its rows',
    description: 'The statement is recorded in the audit log. Rows beyond the configured cap are cut off (`truncated`); a statement running longer than the time limit is cancelled (422).',
    access: 'write',
    body: z.object({ sql: z.string().trim().min(1, 'must not be empty').max(1_000_000) }),
    response: z.object({
      columns: z.array(column),
      rows: z.array(row),
      rowCount: z.number().int().meta({ description: 'Rows returned (after the cap) or affected, as the engine reports it.' }),
      truncated: z.boolean().meta({ description: 'The row cap cut rows off.' }),
    }),
  }),
  insertRow: endpoint({
    method: 'post',
    path: `${base}/rows`,
    operationId: 'insertDatabaseRow',
    tag: 'Databases',
    summary: 'Insert a row into a table',
    access: 'write',
    body: z.object({ table: tableId, values: values.default({}).meta({ description: 'Each column to set and its value.' }) }),
    response: z.object({
      ok: z.literal(true),
      table: z.string(),
      id: z.unknown().meta({ description: 'The new row’s id: its serial or primary key value (an object for a composite key), a redis key, a document’s _id; null when the table has no key.' }),
    }),
  }),
  updateRow: endpoint({
    method: 'patch',
    path: `${base}/rows`,
    operationId: 'updateDatabaseRow',
    tag: 'Databases',
    summary: 'Change columns of the row with the given primary key',
    access: 'write',
    body: z.object({ ...keyed, values: values.refine((v) => Object.keys(v).length > 0, 'must set at least one column').meta({ description: 'Each column to change and its new value.' }) }),
    response: okBody,
  }),
  deleteRow: endpoint({
    method: 'delete',
    path: `${base}/rows`,
    operationId: 'deleteDatabaseRow',
    tag: 'Databases',
    summary: 'Delete the row with the given primary key',
    access: 'write',
    body: z.object(keyed),
    response: okBody,
  }),
  tls: endpoint({
    method: 'get',
    path: `${base}/tls`,
    operationId: 'getDatabaseTls',
    tag: 'Databases',
    summary: 'How to reach a Postgres or timeseries service over TLS from outside',
    description: 'Other engines answer 400.',
    access: 'read',
    response: z.object({ tls: postgresTls }),
    errors: [400],
  }),
  tlsAuthority: endpoint({
    method: 'get',
    path: `${base}/tls/ca`,
    operationId: 'getDatabaseTlsAuthority',
    tag: 'Databases',
    summary: 'The certificate of the authority that signs the database certificates, to verify them with',
    description: 'Only for Postgres and timeseries services (400 otherwise); 409 until the first Postgres deployment has created the authority.',
    access: 'read',
    rawResponse: { mediaType: 'application/x-pem-file', description: 'The CA certificate (PEM), as the attachment `slipway-ca.pem`.' },
    errors: [400, 409],
  }),
};
