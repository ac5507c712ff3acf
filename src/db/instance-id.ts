import { randomUUID } from 'node:crypto';
import type { SqlClient } from './sql-client.js';

/**
 * This installation's id, kept with its data. Docker objects carry it, so a Slipway only ever adopts or
 * cleans up what it created itself, even on an engine another Slipway (or a test run) shares.
 */
export async function loadInstanceId(db: SqlClient): Promise<string> {
  await db.exec('create table if not exists sys_instance (id text primary key)');
  await db.query('insert into sys_instance (id) select $1 where not exists (select 1 from sys_instance)', [randomUUID()]);
  const { rows } = await db.query<{ id: string }>('select id from sys_instance limit 1');
  return rows[0]!.id;
}
