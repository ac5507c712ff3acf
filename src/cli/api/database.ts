import { readFileSync } from 'node:fs';
import type { components } from '../../shared/api-types.js';
import { answer, apiClient, CliError, type Api } from './client.js';
import { confirm } from './confirm.js';
import { endProgress, progress, table, when } from './output.js';
import { print, type Output } from './resources.js';
import { findService, type ServiceSummary } from './resolve.js';
import { UsageError } from './usage-error.js';

type Backup = components['schemas']['Backup'];
type Storage = Backup['storage'];
type Row = components['schemas']['DatabaseRow'];

export interface DbOptions extends Output {
  project?: string;
}

async function database(serviceRef: string, o: DbOptions): Promise<{ api: Api; service: ServiceSummary }> {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  if (service.repoUrl !== 'database') throw new CliError(`${service.slug} is not a database service`);
  return { api, service };
}

const path = (serviceId: string) => ({ params: { path: { serviceId } } });

/** A cell as a table shows it: strings as they are, everything else as JSON. */
const cell = (value: unknown) => (value === null || value === undefined ? 'NULL' : typeof value === 'string' ? value : JSON.stringify(value));
const rowsTable = (columns: readonly string[], rows: readonly Row[]) => table(columns, rows.map((r) => columns.map((c) => cell(r[c]))));

const size = (bytes: number | null) => (bytes === null ? '' : bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);

export async function tables(serviceRef: string, o: DbOptions) {
  const { api, service } = await database(serviceRef, o);
  const data = await answer(api.GET('/api/services/{serviceId}/database/tables', path(service.id)));
  print(o.json, data, () => (data.tables.length === 0 ? `${service.slug} has no tables yet` : table(['TABLE', 'ROWS'], data.tables.map((t) => [t.id, String(t.rowCount)]))));
}

export async function rows(serviceRef: string, o: DbOptions & { table?: string; limit?: string; offset?: string }) {
  if (!o.table) throw new UsageError('db rows needs --table TABLE (see slipway db tables)');
  const { api, service } = await database(serviceRef, o);
  const query = { table: o.table, ...(o.limit ? { limit: o.limit } : {}), ...(o.offset ? { offset: o.offset } : {}) };
  const data = await answer(api.GET('/api/services/{serviceId}/database/rows', { params: { path: { serviceId: service.id }, query } }));
  print(o.json, data, () => {
    const shown = `rows ${data.rows.length === 0 ? 0 : data.offset + 1}–${data.offset + data.rows.length} of ${data.total}`;
    return `${rowsTable(data.columns.map((c) => c.name), data.rows)}\n(${shown})`;
  });
}

export async function query(serviceRef: string, sqlArg: string | undefined, o: DbOptions & { file?: string }) {
  if ((sqlArg === undefined) === (o.file === undefined)) throw new UsageError('give the statement, or --file FILE (- for stdin), not both');
  const sql = o.file === undefined ? sqlArg! : readFileSync(o.file === '-' ? 0 : o.file, 'utf8');
  const { api, service } = await database(serviceRef, o);
  const data = await answer(api.POST('/api/services/{serviceId}/database/query', { ...path(service.id), body: { sql } }));
  print(o.json, data, () => {
    const summary = `(${data.rowCount} row${data.rowCount === 1 ? '' : 's'}${data.truncated ? ', cut off at the cap' : ''})`;
    return data.columns.length === 0 ? summary : `${rowsTable(data.columns.map((c) => c.name), data.rows)}\n${summary}`;
  });
}

const backupRow = (b: Backup) => [b.id, b.status, b.trigger, b.storage, size(b.sizeBytes), when(b.createdAt), b.error ?? ''];
const BACKUP_COLUMNS = ['ID', 'STATUS', 'TRIGGER', 'STORAGE', 'SIZE', 'CREATED', 'ERROR'];

async function listOf(api: Api, serviceId: string): Promise<Backup[]> {
  return (await answer(api.GET('/api/services/{serviceId}/database/backups', path(serviceId)))).backups;
}

export async function backups(serviceRef: string, o: DbOptions) {
  const { api, service } = await database(serviceRef, o);
  const list = await listOf(api, service.id);
  print(o.json, { backups: list }, () => (list.length === 0 ? `${service.slug} has no backups yet: slipway db backup ${service.slug}` : table(BACKUP_COLUMNS, list.map(backupRow))));
}

const STORAGES: readonly Storage[] = ['disk', 'remote', 'disk+remote'];

/** Takes a backup and waits until it has finished: exit code 0 only if it succeeded. */
export async function backup(serviceRef: string, o: DbOptions & { storage?: string }): Promise<number> {
  if (o.storage !== undefined && !STORAGES.includes(o.storage as Storage)) throw new UsageError(`--storage is one of ${STORAGES.join(', ')}`);
  const { api, service } = await database(serviceRef, o);
  // Without --storage the server takes the service's saved default.
  const body = (o.storage ? { storage: o.storage } : {}) as { storage: Storage };
  const { backup: started } = await answer(api.POST('/api/services/{serviceId}/database/backups', { ...path(service.id), body }));
  let current = started;
  while (current.status === 'running') {
    if (!o.json) progress(`backup ${current.id} of ${service.slug} running…`);
    await new Promise((r) => setTimeout(r, 500));
    current = (await listOf(api, service.id)).find((b) => b.id === started.id) ?? current;
  }
  if (!o.json) endProgress();
  print(o.json, { backup: current }, () =>
    current.status === 'succeeded'
      ? `backup ${current.id} of ${service.slug} succeeded: ${size(current.sizeBytes)} on ${current.storage}`
      : `backup ${current.id} of ${service.slug} failed: ${current.error ?? 'no reason given'}`,
  );
  return current.status === 'succeeded' ? 0 : 1;
}

async function findBackup(api: Api, service: ServiceSummary, id: string): Promise<Backup> {
  const found = (await listOf(api, service.id)).find((b) => b.id === id || (id.length >= 8 && b.id.startsWith(id)));
  if (!found) throw new CliError(`${service.slug} has no backup ${id}: see slipway db backups ${service.slug}`);
  return found;
}

export async function restore(serviceRef: string, o: DbOptions & { backup?: string; yes?: boolean }) {
  if (!o.backup) throw new UsageError('db restore needs --backup ID (see slipway db backups)');
  const { api, service } = await database(serviceRef, o);
  const b = await findBackup(api, service, o.backup);
  await confirm(`Restore ${service.slug} from backup ${b.id} of ${when(b.createdAt)}, replacing all of its current data?`, o);
  const data = await answer(api.POST('/api/services/{serviceId}/database/backups/{backupId}/restore', { params: { path: { serviceId: service.id, backupId: b.id } } }));
  print(o.json, data, () => `restored ${service.slug} from backup ${b.id} at ${when(data.restoredAt)}`);
}

export async function deleteBackup(serviceRef: string, id: string | undefined, o: DbOptions & { yes?: boolean }) {
  if (!id) throw new UsageError('db backups SERVICE delete needs the backup id');
  const { api, service } = await database(serviceRef, o);
  const b = await findBackup(api, service, id);
  await confirm(`Delete backup ${b.id} of ${service.slug} (${when(b.createdAt)}, ${b.storage})?`, o);
  const data = await answer(api.DELETE('/api/services/{serviceId}/database/backups/{backupId}', { params: { path: { serviceId: service.id, backupId: b.id } } }));
  print(o.json, data, () => `deleted backup ${b.id} of ${service.slug}`);
}

export async function imports(serviceRef: string, o: DbOptions) {
  const { api, service } = await database(serviceRef, o);
  const data = await answer(api.GET('/api/services/{serviceId}/database/imports', path(service.id)));
  print(o.json, data, () =>
    data.imports.length === 0
      ? `${service.slug} has no imports`
      : table(['ID', 'SOURCE', 'FROM', 'STATUS', 'STARTED', 'FINISHED', 'ERROR'], data.imports.map((i) => [i.id, i.source, i.sourceLabel, i.status, when(i.startedAt), when(i.finishedAt), i.error ?? ''])),
  );
}
