import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadImport, requestImport } from '../../commands/import/handlers.js';
import { reserve } from '../../commands/reservation/handlers.js';
import { service } from '../../commands/service/aggregate.js';
import { deleteService } from '../../commands/service/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { execute, latest } from '../../commands/shared/execute.js';
import { openPglite } from '../../src/db/pglite-client.js';
import type { EventStore, RecordedEvent } from '../../src/eventstore/port.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { createLogger } from '../../src/logger.js';
import { findUnfinishedImport } from '../../projections/import-queries.js';
import { createRetirement, retirementDeps } from '../../src/processes/retirement.js';
import { createKeyring } from '../../src/secrets/keyring.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';
import { addDomain, createProject, createService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { ON_PGLITE, startTestServer, type TestServer } from '../helpers/test-server.js';

const web = (name: string) => ({ name, repoFullName: `acme/${name}`, branch: 'main' });
const typesOf = (events: readonly RecordedEvent[]) => events.map((e) => e.type);
const stream = (s: TestServer, id: string) => s.app.store.readStream(id);
const lastOf = async (s: TestServer, id: string) => (await s.app.store.readStream(id, { direction: 'backwards', maxCount: 1 }))[0];
/** What the reservations read model holds for these owners (after the read models caught up). */
async function heldBy(s: TestServer, ownerIds: string[]) {
  await s.app.runner.caughtUp();
  const { rows } = await s.app.db.query<{ kind: string; value: string; owner: string }>(
    'select kind, value, owner from rm_reservations where owner_id = any($1) order by kind, value',
    [ownerIds],
  );
  return rows;
}
const dataKeysOf = async (s: TestServer, ids: string[]) =>
  (await s.app.db.query('select aggregate_id from sec_data_keys where aggregate_id = any($1)', [ids])).rows;

/** A store that runs `hook` once, right after the first read of `streamId` (the decision state of a command). */
function pausingStore(inner: EventStore, streamId: string, hook: () => Promise<void>): EventStore & { paused: boolean } {
  const store = {
    paused: false,
    kind: inner.kind,
    append: (...args: Parameters<EventStore['append']>) => inner.append(...args),
    readAll: (...args: Parameters<EventStore['readAll']>) => inner.readAll(...args),
    watch: (...args: Parameters<EventStore['watch']>) => inner.watch(...args),
    close: () => inner.close(),
    async readStream(id: string, options?: Parameters<EventStore['readStream']>[1]) {
      const events = await inner.readStream(id, options);
      if (id === streamId && !store.paused) {
        store.paused = true;
        await hook();
      }
      return events;
    },
  };
  return store;
}

t.test('deletion and retirement on one server (no process manager: what DELETE does itself)', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  // Only the deleting command retires here; the reconcile tests drive a retirement reactor by hand.
  await s.app.processManagers.stop();

  await t.test('a domain added while the deletion was deciding is released with the rest', async (t) => {
    const p = await createProject(s, 'Race');
    const svc = await createService(s, p.id, web('racer'));
    const store = pausingStore(s.app.store, `service-${svc.id}`, () => addDomain(s, svc.id, 'race.example.com'));
    const ctx: CommandContext = { ...s.app.commandContext('test'), store };
    const { position } = await deleteService(ctx, retirementDeps(s.app), svc.id);
    await s.app.settle(position);
    t.ok(store.paused, 'the domain was added after the deletion had read its state');
    const types = typesOf(await stream(s, `service-${svc.id}`));
    t.same(types.slice(-3), ['DomainAdded', 'ServiceDeleted', 'ServiceRetired'], 'DomainAdded landed before ServiceDeleted');
    t.same(await heldBy(s, [svc.id]), [], 'nothing stays reserved by the dead service');
    const other = await createService(s, p.id, web('other'));
    const taken = await s.call('POST', `/api/services/${other.id}/domains`, { body: { hostname: 'race.example.com' } });
    t.equal(taken.status, 200, 'another service takes the hostname');
  });

  await t.test('deleting a project retires it and its services before answering', async (t) => {
    const p = await createProject(s, 'Shop');
    const front = await createService(s, p.id, web('front'));
    await addDomain(s, front.id, 'shop.example.com');
    await s.call('POST', `/api/services/${front.id}/env`, { body: { key: 'SECRET', value: 'hunter2' } });
    const db = await createService(s, p.id, {
      name: 'shopdb',
      repoFullName: 'database:postgres',
      repoUrl: 'database',
      branch: 'main',
      internalPort: 5432,
      databasePublicEnabled: true,
      databasePublicHostname: 'shopdb.example.com',
      env: [],
    });
    const ids = [p.id, front.id, db.id];
    t.equal((await heldBy(s, ids)).length, 7, 'slug; two names, two ports; a domain and a public hostname');
    t.equal((await dataKeysOf(s, [front.id, db.id])).length, 2);

    const deleted = await s.call('DELETE', `/api/projects/${p.id}`);
    t.equal(deleted.status, 200);
    const projectEvents = await stream(s, `project-${p.id}`);
    const projectDeleted = projectEvents.find((e) => e.type === 'ProjectDeleted')!;
    const projectRetired = projectEvents.find((e) => e.type === 'ProjectRetired');
    t.equal(projectRetired?.metadata.causationId, projectDeleted.id, 'ProjectRetired is caused by ProjectDeleted');
    t.equal(projectRetired?.metadata.correlationId, deleted.headers.get('x-request-id'), 'within the request');
    for (const id of [front.id, db.id]) {
      const events = await stream(s, `service-${id}`);
      const serviceDeleted = events.find((e) => e.type === 'ServiceDeleted')!;
      t.equal(events.find((e) => e.type === 'ServiceRetired')?.metadata.causationId, serviceDeleted.id, `service ${id} retired`);
    }
    t.same(await heldBy(s, ids), [], 'every reservation released');
    t.same(await dataKeysOf(s, [front.id, db.id]), [], 'both data keys shredded');

    const again = await createProject(s, 'Shop');
    t.equal(again.slug, p.slug, 'the slug is free');
    const front2 = await createService(s, again.id, web('front'));
    t.equal(front2.slug, 'front', 'so is the service name');
    t.equal((await s.call('POST', `/api/services/${front2.id}/domains`, { body: { hostname: 'shop.example.com' } })).status, 200, 'and the domain');
    const db2 = await s.call('POST', `/api/projects/${again.id}/services`, {
      body: { name: 'shopdb', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicHostname: 'shopdb.example.com', env: [] },
    });
    t.equal(db2.status, 200, 'and the public hostname');
  });

  await t.test("a deleted service's imports lose their data keys with it: their source URLs can no longer be opened", async (t) => {
    const p = await createProject(s, 'Imported');
    const db = await createService(s, p.id, { name: 'cache', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 6379, env: [] });
    const ctx = s.app.commandContext('test');
    const deps = { unfinishedImportOf: (serviceId: string) => findUnfinishedImport(s.app.db, serviceId), settle: (position: string | null) => s.app.settle(position) };
    const { id } = await requestImport(ctx, deps, { serviceId: db.id, projectId: p.id, engine: 'redis', source: 'redis-url', sourceLabel: 'redis://old.example.com:6379' }, 'redis://default:Imp0rt-Secret@old.example.com:6379');
    t.equal((await loadImport(ctx, id))?.sourceUrl, 'redis://default:Imp0rt-Secret@old.example.com:6379', 'readable while the service lives');
    t.equal((await dataKeysOf(s, [`import-${id}`])).length, 1);
    t.equal((await s.call('DELETE', `/api/services/${db.id}`)).status, 200);
    t.same(await dataKeysOf(s, [`import-${id}`]), [], "the import's data key is shredded at the retirement");
    t.equal((await loadImport(ctx, id))?.sourceUrl, null, 'its source URL can no longer be opened');
    await s.app.runner.caughtUp();
    t.same((await s.app.db.query('select id from rm_imports where service_id = $1', [db.id])).rows, [], 'the read model forgets the imports once the service is retired');
  });

  await t.test('reconcile reaps reservations whose owner never came into existence, after the grace period', async (t) => {
    const ctx = s.app.commandContext('test');
    const live = await createProject(s, 'Live');
    const kept = await createService(s, live.id, web('kept'));
    await addDomain(s, kept.id, 'kept.example.com');
    const gone = await createService(s, live.id, web('gone'));
    t.equal((await s.call('DELETE', `/api/services/${gone.id}`)).status, 200);

    // Creations that died after reserving: a service (name, port, a domain) and a project (slug).
    const ghost = randomUUID();
    const ghostProject = randomUUID();
    const claims = [
      await reserve(ctx, 'service-name', `${live.id}:ghost`, ghost, 'a name'),
      await reserve(ctx, 'host-port', '29999', ghost, 'a port'),
      await reserve(ctx, 'hostname', 'ghost.example.com', `${ghost}/${randomUUID()}`, 'a hostname'),
      await reserve(ctx, 'project-slug', 'ghost-project', ghostProject, 'a slug'),
      // Taken by a deletion's late straggler (an addDomain that had read the service live), after its retirement.
      await reserve(ctx, 'hostname', 'late.example.com', `${gone.id}/${randomUUID()}`, 'a hostname'),
    ];
    await s.app.settle(latest(...claims.map((c) => c.position)));
    const liveHeld = await heldBy(s, [live.id, kept.id]);
    t.equal(liveHeld.length, 4, 'the live project and service hold their slug, name, port and domain');

    const log = createLogger(true);
    const reactor = (graceMs: number) => createRetirement({ cmd: s.app.commandContext('system:retirement'), db: s.app.db, settle: s.app.settle, graceMs, log });
    await reactor(600_000).reconcile!();
    t.equal((await heldBy(s, [ghost, ghostProject, gone.id])).length, 5, 'within the grace period nothing is reaped');

    await reactor(0).reconcile!();
    t.same(await heldBy(s, [ghost, ghostProject, gone.id]), [], 'past it, every stray reservation is released');
    t.same(await heldBy(s, [live.id, kept.id]), liveHeld, 'a live owner keeps everything');
    const reserved = (await stream(s, 'reservation-service-name-' + `${live.id}:ghost`))[0]!;
    const released = (await lastOf(s, 'reservation-service-name-' + `${live.id}:ghost`))!;
    t.equal(released.type, 'Released');
    t.equal(released.metadata.actor, 'system:retirement');
    t.equal(released.metadata.causationId, reserved.id, 'the release is caused by the orphaned reservation');
    t.equal((await lastOf(s, `reservation-hostname-kept.example.com`))!.type, 'Reserved');

    const reused = await createService(s, live.id, web('ghost'));
    t.equal((await s.call('POST', `/api/services/${reused.id}/domains`, { body: { hostname: 'ghost.example.com' } })).status, 200);
    t.equal((await s.call('POST', `/api/services/${reused.id}/domains`, { body: { hostname: 'late.example.com' } })).status, 200);
    t.equal((await createProject(s, 'Ghost Project')).slug, 'ghost-project');
  });
});

t.test('a deletion cut short by a crash is retired by the process manager at the next start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-retire-'));
  const running: TestServer[] = [];
  t.teardown(async () => {
    for (const server of running) await server.stopKeepingData().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const first = await startTestServer(ON_PGLITE, dir);
  running.push(first);
  const p = await createProject(first, 'Crash');
  const svc = await createService(first, p.id, { ...web('victim'), env: [{ key: 'SECRET', value: 'hunter2' }] });
  await addDomain(first, svc.id, 'victim.example.com');
  const sealed = (await stream(first, `service-${svc.id}`)).flatMap((e) => (e.type === 'EnvVarSet' ? [String(e.data.value)] : []));
  t.equal(sealed.length, 1);
  t.equal(await first.app.keyring.decrypt(sealed[0]!), 'hunter2', 'the secret is readable while the service lives');
  t.equal((await heldBy(first, [svc.id])).length, 3, 'name, port, domain');
  await running.pop()!.stopKeepingData();

  // With no server running: the first step of a deletion (ServiceDeleted) and nothing after it. The process
  // manager's checkpoint is dropped too, so only its reconcile (not the log) can find the deletion.
  const pg = await openPglite(join(dir, 'pgdata'));
  const store = await createPostgresEventStore(pg);
  const ctx: CommandContext = { store, keyring: await createKeyring(pg, loadMasterKey(dir, undefined).key), actor: 'test', correlationId: randomUUID() };
  const { events } = await execute(ctx, service, svc.id, service.decide.delete);
  t.equal(events[0]?.type, 'ServiceDeleted');
  await pg.query(`delete from pm_checkpoints where name = 'retirement'`);
  await store.close();
  await pg.close();

  const second = await startTestServer(ON_PGLITE, dir);
  running.push(second);
  const history = await waitFor('ServiceRetired', () => stream(second, `service-${svc.id}`), (e) => typesOf(e).includes('ServiceRetired'));
  const deleted = history.find((e) => e.type === 'ServiceDeleted')!;
  const retired = history.find((e) => e.type === 'ServiceRetired')!;
  t.equal(retired.metadata.causationId, deleted.id, 'caused by the ServiceDeleted event');
  t.equal(retired.metadata.correlationId, deleted.metadata.correlationId, 'in its correlation');
  t.equal(retired.metadata.actor, 'system:retirement');
  t.same(await heldBy(second, [svc.id]), [], 'its reservations are released');
  t.same(await dataKeysOf(second, [svc.id]), [], 'its data key is gone');
  t.equal(await second.app.keyring.decrypt(sealed[0]!), null, 'its secret can no longer be decrypted');
  const fresh = await createKeyring(second.app.db, loadMasterKey(dir, undefined).key);
  t.equal(await fresh.decrypt(sealed[0]!), null, 'not even by a keyring opened afresh');
  const detached = (await stream(second, `project-${p.id}`)).find((e) => e.type === 'ProjectServiceDetached');
  t.equal(detached?.data.serviceId, svc.id, 'it left its project');

  const again = await createService(second, p.id, web('victim'));
  t.equal(again.slug, 'victim', 'the name is free');
  t.equal((await second.call('POST', `/api/services/${again.id}/domains`, { body: { hostname: 'victim.example.com' } })).status, 200, 'the domain too');
});
