import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openPglite } from '../../src/db/pglite-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { eventStoreContract } from '../helpers/event-store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'slipway-es-'));
let sql: SqlClient;
t.teardown(async () => {
  await sql?.close();
  rmSync(dir, { recursive: true, force: true });
});

eventStoreContract(t, async () => {
  sql = await openPglite(join(dir, 'pg'));
  return createPostgresEventStore(sql);
});
