import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { required } from './requirements.js';

/** URL of the Postgres server the test command started; undefined when none was. */
export const serverUrl = process.env.TEST_DATABASE_URL;

const noServerReason = 'TEST_DATABASE_URL is not set: start a Postgres server (npm test does) to run the server tests';

/** tap's `skip` for tests that need the Postgres server; fatal under `npm test`. */
export const requirePostgresServer = () => required(serverUrl ? false : noServerReason);

/** A fresh database on the test server, dropped by the returned function. */
export const freshDatabase = (baseUrl: string) => databaseOf(baseUrl, `slipway_t_${randomBytes(6).toString('hex')}`);

/** The database `name` on the test server, created unless it exists; dropped by the returned function. */
export async function databaseOf(baseUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } catch (error) {
    // 42P04: it exists (a server started again on its data directory).
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await admin.end();
  }
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
