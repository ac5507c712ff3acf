import { createHash, randomBytes } from 'node:crypto';
import type { SqlClient } from '../db/sql-client.js';

/**
 * Not a read model (not rebuilt from events): the dashboard's sign-ins. A session holds the hash of the key it
 * was opened with, never the key, so it lives exactly as long as the key does; or the person it signed in, who
 * is looked up on every request. The browser holds only the token.
 */
const SESSIONS_DDL = `
create table if not exists http_sessions (
  token_hash text primary key,
  key_hash text not null,
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index if not exists http_sessions_last_seen on http_sessions (last_seen_at);
alter table http_sessions add column if not exists user_id text;
alter table http_sessions add column if not exists device text;
alter table http_sessions add column if not exists address text;
alter table http_sessions alter column key_hash drop not null;
create index if not exists http_sessions_user on http_sessions (user_id);`;

/** The most sessions one key has open at once: signing in once more ends its oldest. */
export const MAX_SESSIONS_PER_KEY = 10;

/** How long a session may last: since its sign-in, and since its last request. */
export interface SessionLifetime {
  maxMs: number;
  idleMs: number;
}

export interface OpenedSession {
  /** Goes to the browser in an HttpOnly cookie, nowhere else. */
  token: string;
  csrfToken: string;
}

export interface FoundSession {
  /** The key's hash, for a session opened with a key. */
  keyHash: string | null;
  /** The person, for a session opened with an e-mail and password. */
  userId: string | null;
  csrfToken: string;
}

type SessionOwner = { keyHash: string } | { userId: string };

/** Where a session was opened: the browser's User-Agent (cut short) and the client's address. */
export interface SessionOrigin {
  device: string;
  address: string;
}

/** One of a person's sessions as they see it: the id is a prefix of the token's hash, never the token. */
export interface SessionSummary {
  id: string;
  device: string | null;
  address: string | null;
  createdAt: string;
  lastSeenAt: string;
}

const SESSION_ID_LENGTH = 16;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly db: SqlClient) {}

  private prepare(): Promise<void> {
    this.ready ??= this.db.exec(SESSIONS_DDL);
    return this.ready;
  }

  /** A new session of the key or the person; their oldest ones end so that each keeps at most MAX_SESSIONS_PER_KEY. */
  async open(owner: SessionOwner, origin: SessionOrigin | null = null): Promise<OpenedSession> {
    await this.prepare();
    const opened = { token: newToken(), csrfToken: newToken() };
    const [column, value] = 'keyHash' in owner ? ['key_hash', owner.keyHash] : ['user_id', owner.userId];
    await this.db.transaction(async (tx) => {
      await tx.query(`insert into http_sessions (token_hash, ${column}, csrf_token, device, address, created_at) values ($1, $2, $3, $4, $5, clock_timestamp())`, [
        hashToken(opened.token),
        value,
        opened.csrfToken,
        origin?.device.slice(0, 200) ?? null,
        origin?.address ?? null,
      ]);
      await tx.query(
        `delete from http_sessions where ${column} = $1 and token_hash not in (
           select token_hash from http_sessions where ${column} = $1 order by created_at desc, token_hash limit $2)`,
        [value, MAX_SESSIONS_PER_KEY],
      );
    });
    return opened;
  }

  /** The person's sessions, newest first; `current` marks the one of this token. */
  async listOf(userId: string, currentToken: string | undefined): Promise<(SessionSummary & { current: boolean })[]> {
    await this.prepare();
    const { rows } = await this.db.query<{ token_hash: string; device: string | null; address: string | null; created_at: Date | string; last_seen_at: Date | string }>(
      'select token_hash, device, address, created_at, last_seen_at from http_sessions where user_id = $1 order by created_at desc, token_hash',
      [userId],
    );
    const mine = currentToken ? hashToken(currentToken) : null;
    return rows.map((r) => ({
      id: r.token_hash.slice(0, SESSION_ID_LENGTH),
      device: r.device,
      address: r.address,
      createdAt: new Date(r.created_at).toISOString(),
      lastSeenAt: new Date(r.last_seen_at).toISOString(),
      current: r.token_hash === mine,
    }));
  }

  /** Ends the person's session of this id; false when they have none. */
  async closeOf(userId: string, id: string): Promise<boolean> {
    await this.prepare();
    if (!/^[0-9a-f]{16}$/.test(id)) return false;
    const { rows } = await this.db.query<{ token_hash: string }>('delete from http_sessions where user_id = $1 and substr(token_hash, 1, 16) = $2 returning token_hash', [userId, id]);
    return rows.length > 0;
  }

  /** Ends every session of the person, but the one of `keepToken` (the request that changed their password). */
  async closeAllOf(userId: string, keepToken?: string): Promise<void> {
    await this.prepare();
    await this.db.query('delete from http_sessions where user_id = $1 and token_hash <> $2', [userId, keepToken ? hashToken(keepToken) : '']);
  }

  /**
   * The session, when it began within `maxMs` and was seen within `idleMs` (else it is deleted: 'ended'); seen
   * now, to the minute. Null: no such session.
   */
  async touch(token: string, lifetime: SessionLifetime): Promise<FoundSession | 'ended' | null> {
    await this.prepare();
    const hash = hashToken(token);
    const { rows } = await this.db.query<{ key_hash: string | null; user_id: string | null; csrf_token: string; ended: boolean; stale: boolean }>(
      `select key_hash, user_id, csrf_token,
              last_seen_at < now() - make_interval(secs => $2) or created_at < now() - make_interval(secs => $3) as ended,
              last_seen_at < now() - interval '1 minute' as stale
       from http_sessions where token_hash = $1`,
      [hash, lifetime.idleMs / 1000, lifetime.maxMs / 1000],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.ended) {
      await this.db.query('delete from http_sessions where token_hash = $1', [hash]);
      return 'ended';
    }
    // A write per minute of use, not per request.
    if (row.stale) await this.db.query('update http_sessions set last_seen_at = now() where token_hash = $1', [hash]);
    return { keyHash: row.key_hash, userId: row.user_id, csrfToken: row.csrf_token };
  }

  /** The session while it stands, without counting this as use: a long-lived stream asks, and must not keep it alive. */
  async peek(token: string, lifetime: SessionLifetime): Promise<FoundSession | null> {
    await this.prepare();
    const { rows } = await this.db.query<{ key_hash: string | null; user_id: string | null; csrf_token: string }>(
      `select key_hash, user_id, csrf_token from http_sessions
       where token_hash = $1 and last_seen_at >= now() - make_interval(secs => $2) and created_at >= now() - make_interval(secs => $3)`,
      [hashToken(token), lifetime.idleMs / 1000, lifetime.maxMs / 1000],
    );
    const row = rows[0];
    return row ? { keyHash: row.key_hash, userId: row.user_id, csrfToken: row.csrf_token } : null;
  }

  async close(token: string): Promise<void> {
    await this.prepare();
    await this.db.query('delete from http_sessions where token_hash = $1', [hashToken(token)]);
  }

  /** Sessions idle for longer than `idleMs`, or older than `maxMs`, are gone. */
  async sweep(lifetime: SessionLifetime): Promise<void> {
    await this.prepare();
    await this.db.query('delete from http_sessions where last_seen_at < now() - make_interval(secs => $1) or created_at < now() - make_interval(secs => $2)', [
      lifetime.idleMs / 1000,
      lifetime.maxMs / 1000,
    ]);
  }
}
