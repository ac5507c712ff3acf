import { hostname } from 'node:os';
import pg from 'pg';

export class InstallationLockedError extends Error {
  constructor(readonly holder: { pid: number; host: string; since: string } | null) {
    super(
      `another Slipway process holds this installation: ${holder ? `pid ${holder.pid} on host ${holder.host}, since ${holder.since}` : 'pid unknown (it is starting, or is older than this version)'}. ` +
        'Only one process may run an installation; stop that one first.',
    );
  }
}

export interface InstallationLock {
  /** Lets the lock go (its connection ends); losing it afterwards is not reported. */
  release(): Promise<void>;
}

// Advisory locks are scoped to a database; the schema tells apart installations sharing one. A fixed key
// rather than the installation id: two first starts would each create an id and both take "their" lock.
// Not the event store's STREAM_LOCK_CLASS: a stream whose name hashed like the schema would wait on this lock forever.
const NAMESPACE = 0x534c5049; // "SLPI"
const KEY = `${NAMESPACE}, hashtext(current_schema())`;
const KEEPALIVE_MS = 10_000;
// TCP keepalive alone notices a silent network only after minutes; the server may drop the session (and
// the lock) sooner. A query every few seconds bounds how long this process can act without the lock.
const HEARTBEAT_MS = 5000;
const QUERY_TIMEOUT_MS = 10_000;

async function holderOf(client: pg.Client): Promise<InstallationLockedError['holder']> {
  try {
    const { rows } = await client.query<{ pid: number; host: string; since: Date }>(
      `select h.pid, h.host, h.since from pg_locks l join sys_installation_holder h on h.backend_pid = l.pid
       where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
         and l.classid = ${NAMESPACE}::int4::oid and l.objid = hashtext(current_schema())::oid and l.objsubid = 2`,
    );
    const row = rows[0];
    return row ? { pid: row.pid, host: row.host, since: row.since.toISOString() } : null;
  } catch {
    return null; // no holder table yet: the holder is a first start that has not written it
  }
}

/**
 * On a Postgres server, one process runs an installation: it alone applies events to the read models and
 * drives the outside world (deployments, backups, imports). It holds a session advisory lock on a
 * connection of its own for as long as it runs; the server drops it when that session ends, however the
 * process ends. `onLost` is called once if the connection breaks while the lock is held: from then on
 * another process may take over, and this one must stop acting.
 */
export async function lockInstallation(url: string, onLost: (error: Error) => void): Promise<InstallationLock> {
  const client = new pg.Client({
    connectionString: url,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: 'slipway installation lock',
  });
  let held = false;
  let releasing = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const lost = (error: Error) => {
    if (!held || releasing) return;
    clearInterval(heartbeat);
    releasing = true;
    onLost(error);
  };
  client.on('error', lost);
  client.on('end', () => lost(new Error('the connection holding the installation lock ended')));
  try {
    await client.connect();
    const { rows } = await client.query<{ locked: boolean }>(`select pg_try_advisory_lock(${KEY}) as locked`);
    if (!rows[0]!.locked) throw new InstallationLockedError(await holderOf(client));
    await client.query(`create table if not exists sys_installation_holder (
      id int primary key default 1 check (id = 1), pid int not null, host text not null, backend_pid int not null, since timestamptz not null)`);
    await client.query(
      `insert into sys_installation_holder (pid, host, backend_pid, since) values ($1, $2, pg_backend_pid(), now())
       on conflict (id) do update set pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid, since = excluded.since`,
      [process.pid, hostname()],
    );
    held = true;
  } catch (error) {
    releasing = true;
    await client.end().catch(() => undefined);
    throw error;
  }
  heartbeat = setInterval(() => void client.query('select 1').catch(lost), HEARTBEAT_MS).unref();
  return {
    async release() {
      clearInterval(heartbeat);
      if (releasing) return;
      releasing = true;
      await client.end().catch(() => undefined);
    },
  };
}
