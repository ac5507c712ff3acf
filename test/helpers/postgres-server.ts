import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { required } from './requirements.js';

/** URL of the Postgres server the test command started; undefined when none was. */
export const serverUrl = process.env.TEST_DATABASE_URL;

const noServerReason = 'TEST_DATABASE_URL is not set: start a Postgres server (npm test does) to run the server tests';

/** tap's `skip` for tests that need the Postgres server; fatal under `npm test`. */
export const requirePostgresServer = () => required(serverUrl ? false : noServerReason);

/** A fresh database on the test server, dropped by the returned function. */
export async function freshDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `slipway_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
