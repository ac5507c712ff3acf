import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openPglite } from '../../src/db/pglite-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { seedPgliteDir } from '../helpers/pglite-template.js';

const SLEEP_AFTER_MS = 300;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await pause(20);
  }
}

async function sleepyStore(t: Test, sleepAfterMs = SLEEP_AFTER_MS): Promise<SqlClient> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-sleep-'));
  await seedPgliteDir(join(dir, 'pgdata'));
  const db = await openPglite(join(dir, 'pgdata'), sleepAfterMs);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

t.test('a quiet store sleeps, and the next statement wakes it with its data', async (t) => {
  const db = await sleepyStore(t);
  await db.exec('create table items (id int primary key, name text)');
  await db.query('insert into items values (1, $1)', ['kept']);
  t.notOk(db.asleep(), 'awake while used');
  await until('the store sleeps', () => db.asleep());
  const { rows } = await db.query<{ name: string }>('select name from items where id = 1');
  t.same(rows, [{ name: 'kept' }], 'what was written before it slept is read after');
  t.notOk(db.asleep(), 'a statement woke it');
});

t.test('touches keep it awake; periodic reads alone do not', async (t) => {
  const db = await sleepyStore(t, 1000);
  for (let i = 0; i < 20; i++) {
    db.touch();
    await db.query('select 1');
    await pause(100);
  }
  t.notOk(db.asleep(), 'two seconds of touches 100 ms apart, sleeping after one: still awake');
  // Reads well inside the 1 s: each wakes a sleeping store, so it sleeps only until the next one. Spaced
  // 250 ms, that moment is long enough to be seen on a loaded machine (every 50 ms it was missed in CI).
  const reading = setInterval(() => void db.query('select 1').catch(() => undefined), 250);
  t.teardown(() => clearInterval(reading));
  await until('it sleeps although it is read every 250 ms', () => db.asleep(), 30_000);
  t.pass('untouched reads do not keep it awake');
});

t.test('an open transaction keeps it awake, however long it lasts', async (t) => {
  const db = await sleepyStore(t);
  await db.exec('create table items (id int primary key)');
  await db.transaction(async (tx) => {
    await tx.query('insert into items values (1)');
    await pause(SLEEP_AFTER_MS * 3);
    t.notOk(db.asleep(), 'not asleep inside the transaction');
    await tx.query('insert into items values (2)');
  });
  t.same((await db.query('select id from items order by id')).rows, [{ id: 1 }, { id: 2 }], 'both statements committed');
});

t.test('notifications reach listeners across a sleep', async (t) => {
  const db = await sleepyStore(t);
  const heard: number[] = [];
  const stop = await db.listen('changes', () => heard.push(Date.now()));
  await until('the store sleeps', () => db.asleep());
  await db.query(`select pg_notify('changes', '')`);
  await until('the listener hears it', () => heard.length === 1, 2000);
  await stop();
  await db.query(`select pg_notify('changes', '')`);
  await pause(100);
  t.equal(heard.length, 1, 'no longer heard after it stopped listening');
});

t.test('it never sleeps with sleeping off, nor in memory', async (t) => {
  const off = await sleepyStore(t, 0);
  const memory = await openPglite(undefined, SLEEP_AFTER_MS);
  t.teardown(() => memory.close());
  await pause(SLEEP_AFTER_MS * 4);
  t.notOk(off.asleep(), 'SLIPWAY_STORE_SLEEP_AFTER=0');
  t.notOk(memory.asleep(), 'an in-memory store would lose its data');
});
