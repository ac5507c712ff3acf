import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openPglite } from '../../src/db/pglite-client.js';
import { maintainTables, upkeepOf, type TableActivity } from '../../src/db/pglite-maintenance.js';
import { seedPgliteDir } from '../helpers/pglite-template.js';

const table = (over: Partial<TableActivity>): TableActivity => ({ table: 'public.t', liveRows: 1000, deadRows: 0, modifiedSinceAnalyze: 0, neverAnalysed: false, ...over });

t.test("autovacuum's default thresholds", async (t) => {
  t.equal(upkeepOf(table({})), null, 'nothing changed');
  t.equal(upkeepOf(table({ modifiedSinceAnalyze: 150 })), null, '50 + 10 % of 1,000 rows changed is not more than the threshold');
  t.equal(upkeepOf(table({ modifiedSinceAnalyze: 151 })), 'analyze', 'one more is');
  t.equal(upkeepOf(table({ deadRows: 250 })), null, '50 + 20 % dead');
  t.equal(upkeepOf(table({ deadRows: 251 })), 'vacuum analyze');
  t.equal(upkeepOf(table({ liveRows: 0, neverAnalysed: true })), null, 'an empty table never analysed');
  t.equal(upkeepOf(table({ liveRows: 3, neverAnalysed: true })), 'analyze', 'rows that were never analysed');
});

t.test('a pass analyses and vacuums the tables that need it, and only those', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-maintenance-'));
  await seedPgliteDir(join(dir, 'pg'));
  const db = await openPglite(join(dir, 'pg'));
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await db.exec(`create table churned (id int primary key, n int); create table quiet (id int primary key);
    insert into churned select g, 0 from generate_series(1, 1000) g; insert into quiet values (1)`);
  t.same(
    (await maintainTables(db)).map((d) => `${d.upkeep} ${d.table}`).sort(),
    ['analyze public.churned', 'analyze public.quiet'],
    'tables that were never analysed',
  );
  await db.exec('update churned set n = n + 1 where id <= 600');
  t.same(await maintainTables(db), [{ table: 'public.churned', upkeep: 'vacuum analyze' }], '600 dead rows in 1,000');
  const { rows } = await db.query<{ vacuumed: boolean; dead: string }>(
    `select last_vacuum is not null as vacuumed, n_dead_tup::text as dead from pg_stat_user_tables where relname = 'churned'`,
  );
  t.same(rows, [{ vacuumed: true, dead: '0' }], 'vacuumed: no dead rows left');
  t.same(await maintainTables(db), [], 'nothing left to do');
});
