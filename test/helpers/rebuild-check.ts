import type { Test } from 'tap';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { dumpReadModels } from './read-models.js';
import type { TestServer } from './test-server.js';

/** Every recorded event, in global order, a batch at a time. */
async function* everyBatch(s: TestServer) {
  for (let after: string | null = null; ; ) {
    const batch = await s.app.store.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) return;
    yield batch;
    after = batch[batch.length - 1]!.position;
  }
}

export async function recordedTypes(s: TestServer): Promise<Set<string>> {
  const types = new Set<string>();
  for await (const batch of everyBatch(s)) for (const e of batch) types.add(e.type);
  return types;
}

async function headPosition(s: TestServer): Promise<string | null> {
  let head: string | null = null;
  for await (const batch of everyBatch(s)) head = batch[batch.length - 1]!.position;
  return head;
}

/** Waits until no event has been appended for `quietMs` and every projector has applied the last one: work a test set off (a retirement, a backup's removal) finishes before the comparison. */
export async function quiesce(s: TestServer, quietMs = 3000, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let head = await headPosition(s); ; ) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await headPosition(s);
    if (now === head) return s.app.settle(now);
    if (Date.now() > deadline) throw new Error(`events still arrive after ${timeoutMs} ms (head ${now})`);
    head = now;
  }
}

export async function readTables(s: TestServer): Promise<string[]> {
  const { rows } = await s.app.db.query<{ table_name: string }>(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_name like 'rm\\_%' order by 1",
  );
  return rows.map((r) => r.table_name);
}

export const checkpoints = async (s: TestServer) =>
  (await s.app.db.query('select projector, version, position from proj_checkpoints order by projector')).rows;

/** Rebuilds every read model from the log and compares each table, the checkpoints and an API answer with the live ones. */
export async function rebuildEquals(t: Test, s: TestServer) {
  await quiesce(s);
  const tables = await readTables(s);
  t.same(tables, ALL_PROJECTORS.flatMap((p) => p.tables).sort(), 'every read table belongs to a projector, and is compared');
  const live = await dumpReadModels(s.app.db);
  const liveCheckpoints = await checkpoints(s);
  const listBefore = (await s.call('GET', '/api/projects')).body;
  t.equal(liveCheckpoints.length, ALL_PROJECTORS.length, 'a checkpoint per projector');

  const result = (await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] })) as { events: number };
  t.equal(result.events, live.rm_audit_log!.length, 'every event replayed');
  t.same(await readTables(s), tables, 'the same tables');
  for (const table of tables) t.same((await dumpReadModels(s.app.db))[table], live[table], `${table}: rebuilt equals live`);
  t.same(await checkpoints(s), liveCheckpoints, 'the checkpoints equal the live ones');
  const after = await s.call('GET', '/api/projects');
  t.same(after.body, listBefore, 'and the API answers the same from them');
}

