import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openPglite } from '../../src/db/pglite-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { appendsShareTransactions, appendsUseIndexes } from '../helpers/postgres-appends.js';
import { eventStoreContract } from '../helpers/event-store-contract.js';
import { seedPgliteDir } from '../helpers/pglite-template.js';

const dir = mkdtempSync(join(tmpdir(), 'slipway-es-'));
let sql: Promise<SqlClient> | null = null;
t.teardown(async () => {
  await (await sql)?.close();
  rmSync(dir, { recursive: true, force: true });
});

// PGlite has one connection per data directory: another client is another store on that connection.
eventStoreContract(t, async () => createPostgresEventStore(await (sql ??= seedPgliteDir(join(dir, 'pg')).then(() => openPglite(join(dir, 'pg'))))));

const own = mkdtempSync(join(tmpdir(), 'slipway-es-scans-'));
let scanned: SqlClient;
t.before(async () => {
  await seedPgliteDir(join(own, 'pg'));
  scanned = await openPglite(join(own, 'pg'));
});
t.teardown(async () => {
  await scanned.close();
  rmSync(own, { recursive: true, force: true });
});
appendsUseIndexes(t, () => scanned);
appendsShareTransactions(t, () => scanned);
