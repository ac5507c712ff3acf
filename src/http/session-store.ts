import { createHash, randomBytes } from 'node:crypto';
import type { SqlClient } from '../db/sql-client.js';

/**
 * Not a read model (not rebuilt from events): the dashboard's sign-ins. A session holds the hash of the key it
 * was opened with, never the key, so it lives exactly as long as the key does; the browser holds only the token.
 */
const SESSIONS_DDL = `
create table if not exists http_sessions (
  token_hash text primary key,
  key_hash text not null,
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index if not exists http_sessions_last_seen on http_sessions (last_seen_at);`;

export interface OpenedSession {
  /** Goes to the browser in an HttpOnly cookie, nowhere else. */
  token: string;
  csrfToken: string;
}

export interface FoundSession {
  keyHash: string;
  csrfToken: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly db: SqlClient) {}

  private prepare(): Promise<void> {
    this.ready ??= this.db.exec(SESSIONS_DDL);
    return this.ready;
  }

  async open(keyHash: string): Promise<OpenedSession> {
    await this.prepare();
    const opened = { token: newToken(), csrfToken: newToken() };
    await this.db.query('insert into http_sessions (token_hash, key_hash, csrf_token) values ($1, $2, $3)', [hashToken(opened.token), keyHash, opened.csrfToken]);
    return opened;
  }

  /** The session, when it was seen within `idleMs` (an idle one is deleted); seen now, to the minute. Null: no such session. */
  async touch(token: string, idleMs: number): Promise<FoundSession | 'idle' | null> {
    await this.prepare();
    const hash = hashToken(token);
    const { rows } = await this.db.query<{ key_hash: string; csrf_token: string; idle: boolean; stale: boolean }>(
      `select key_hash, csrf_token, last_seen_at < now() - make_interval(secs => $2) as idle, last_seen_at < now() - interval '1 minute' as stale
       from http_sessions where token_hash = $1`,
      [hash, idleMs / 1000],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.idle) {
      await this.db.query('delete from http_sessions where token_hash = $1', [hash]);
      return 'idle';
    }
    // A write per minute of use, not per request.
    if (row.stale) await this.db.query('update http_sessions set last_seen_at = now() where token_hash = $1', [hash]);
    return { keyHash: row.key_hash, csrfToken: row.csrf_token };
  }

  async close(token: string): Promise<void> {
    await this.prepare();
    await this.db.query('delete from http_sessions where token_hash = $1', [hashToken(token)]);
  }

  /** Sessions idle for longer than `idleMs` are gone. */
  async sweep(idleMs: number): Promise<void> {
    await this.prepare();
    await this.db.query('delete from http_sessions where last_seen_at < now() - make_interval(secs => $1)', [idleMs / 1000]);
  }
}
