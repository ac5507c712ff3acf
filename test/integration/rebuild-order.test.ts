import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { openPostgres } from '../../src/db/pg-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { newEvent } from '../helpers/new-event.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { seededPglite } from '../helpers/pglite-template.js';

/**
 * A rebuild writes batch after batch while it reads and builds the next ones, on a Postgres server on two
 * connections at once: every projector must still see its events in the log's order. One variable is set
 * 12,000 times across several batches (5,000 events each on a server, 500 on PGlite); the last value wins.
 */
async function lastWriteWins(t: Test, db: SqlClient) {
  const store = await createPostgresEventStore(db);
  const serviceId = randomUUID();
  const envId = randomUUID();
  const stream = `service-${serviceId}`;
  await store.append(stream, [newEvent('ServiceCreated', {
    projectId: randomUUID(), name: 'web', slug: 'web', kind: 'source', repoFullName: 'acme/app', repoUrl: 'https://github.com/acme/app.git',
    dockerImage: null, hostPort: 20001, databaseEngine: null, databasePublicEnabled: false, databasePublicHostname: null,
    postgresLogicalReplicationEnabled: false, branch: 'main', rootDir: null, gitToken: null, installCommand: null, buildCommand: null,
    startCommand: null, buildMethod: 'auto', dockerfilePath: null, runtimeMode: 'web', internalPort: 3000,
  })], 'no_stream');
  const total = 12_000;
  for (let i = 0; i < total; i += 400) {
    await store.append(stream, Array.from({ length: 400 }, (_, k) => newEvent('EnvVarSet', { envId, key: 'KEY', value: `enc:v1:${i + k}` })), 'any');
  }
  const runner = new ProjectionRunner(db, store, ALL_PROJECTORS);
  await runner.start();
  t.teardown(() => runner.stop());
  await runner.caughtUp();
  const live = await dumpReadModels(db);
  const result = await runner.rebuild();
  t.equal(result.events, total + 1, 'every event replayed');
  t.equal(result.parked, 0, 'nothing parked');
  const { rows } = await db.query<{ value: string }>('select value from rm_env where id = $1', [envId]);
  t.same(rows, [{ value: `enc:v1:${total - 1}` }], 'the last value set is the value');
  const rebuilt = await dumpReadModels(db);
  for (const table of Object.keys(live)) t.same(rebuilt[table], live[table], `${table}: rebuilt equals live`);
}

t.test('PGlite', async (t) => {
  const db = await seededPglite();
  t.teardown(() => db.close());
  await lastWriteWins(t, db);
});

t.test('Postgres server', { skip: requirePostgresServer() }, async (t) => {
  const fresh = await freshDatabase(serverUrl!);
  const db = await openPostgres(fresh.url);
  t.teardown(async () => {
    await db.close();
    await fresh.drop();
  });
  await lastWriteWins(t, db);
});
