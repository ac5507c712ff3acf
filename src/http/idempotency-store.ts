import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SqlClient } from '../db/sql-client.js';
import type { Keyring } from '../secrets/keyring.js';

/** Not a read model (not rebuilt from events): the answers to requests sent with an Idempotency-Key. */
const IDEMPOTENCY_DDL = `
create table if not exists http_idempotency (
  api_key_id text not null,
  key text not null,
  fingerprint text not null,
  seed text not null,
  request_id text not null,
  status integer,
  body text,
  started_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  primary key (api_key_id, key)
);
create index if not exists http_idempotency_created on http_idempotency (created_at);
alter table http_idempotency add column if not exists owner text;
alter table http_idempotency add column if not exists heartbeat_at timestamptz not null default now();
alter table http_idempotency add column if not exists retryable boolean not null default false;`;

// Stored answers can hold secrets (a new API key's): they are sealed like every other secret.
const SEAL_ID = 'http-idempotency';

export interface IdempotencyTimes {
  /** How long a key and its answer are kept. */
  ttlMs: number;
  /**
   * An unanswered attempt whose process has not said it is still working for this long is taken for dead
   * (the server stopped mid-request); a running attempt says so every third of this.
   */
  abandonAfterMs: number;
  /** Expired keys are deleted at most this often. */
  sweepEveryMs: number;
}

export const DEFAULT_IDEMPOTENCY_TIMES: IdempotencyTimes = { ttlMs: 24 * 3600_000, abandonAfterMs: 60_000, sweepEveryMs: 60_000 };

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

export type Claim =
  /** Run the request; `seed` is what its event and aggregate ids derive from (the same for a re-run of a dead or failed attempt). */
  | { kind: 'run'; seed: string }
  | { kind: 'replay'; status: number; body: unknown; requestId: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

interface Row {
  fingerprint: string;
  seed: string;
  request_id: string;
  status: number | null;
  body: string | null;
  abandoned: boolean;
}

const seconds = (ms: number) => ms / 1000;

/** Who runs an attempt: this process, told apart from an earlier one on the same host (a restart). */
const processOwner = () => `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

/**
 * An attempt may be run again when its owner gave up on it (a 5xx: `retryable`) or is gone (no heartbeat
 * for `abandonAfterMs`). Its seed stays, so the re-run derives the same ids and appends nothing twice.
 */
const runnableAgain = (abandonAfterParam: string) =>
  `status is null and (retryable or heartbeat_at < now() - make_interval(secs => ${abandonAfterParam}))`;

export class IdempotencyStore {
  private ready: Promise<void> | null = null;
  private lastSweep = 0;

  constructor(
    private readonly db: SqlClient,
    private readonly keyring: Keyring,
    private readonly times: IdempotencyTimes = DEFAULT_IDEMPOTENCY_TIMES,
    readonly owner: string = processOwner(),
  ) {}

  /** How often a running attempt tells it is alive: well within `abandonAfterMs`, even if one beat is late. */
  get heartbeatEveryMs(): number {
    return Math.max(10, Math.floor(this.times.abandonAfterMs / 3));
  }

  /** Creates the table; every other method waits for it. */
  prepare(): Promise<void> {
    this.ready ??= this.db.exec(IDEMPOTENCY_DDL).catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  async claim(scope: IdempotencyScope, fingerprint: string, requestId: string): Promise<Claim> {
    await this.prepare();
    await this.sweep();
    const abandon = seconds(this.times.abandonAfterMs);
    // A row deleted between two statements (a swept key) is claimed afresh: a few rounds suffice.
    for (let round = 0; round < 3; round++) {
      const inserted = await this.db.query<{ seed: string }>(
        `insert into http_idempotency (api_key_id, key, fingerprint, seed, request_id, owner) values ($1, $2, $3, $4, $5, $7)
         on conflict (api_key_id, key) do update
           set fingerprint = excluded.fingerprint, seed = excluded.seed, request_id = excluded.request_id, owner = excluded.owner,
               status = null, body = null, retryable = false, started_at = now(), heartbeat_at = now(), created_at = now()
           where http_idempotency.created_at < now() - make_interval(secs => $6)
         returning seed`,
        [scope.apiKeyId, scope.key, fingerprint, randomUUID(), requestId, seconds(this.times.ttlMs), this.owner],
      );
      if (inserted.rows[0]) return { kind: 'run', seed: inserted.rows[0].seed };
      const { rows } = await this.db.query<Row>(
        `select fingerprint, seed, request_id, status, body, (${runnableAgain('$3')}) as abandoned
         from http_idempotency where api_key_id = $1 and key = $2`,
        [scope.apiKeyId, scope.key, abandon],
      );
      const row = rows[0];
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status !== null) return { kind: 'replay', status: row.status, body: await this.open(row.body), requestId: row.request_id };
      if (!row.abandoned) return { kind: 'in_progress' };
      // Conditional, so of two retries racing for the same attempt only one runs it.
      const taken = await this.db.query<{ seed: string }>(
        `update http_idempotency set started_at = now(), heartbeat_at = now(), retryable = false, request_id = $4, owner = $6
         where api_key_id = $1 and key = $2 and seed = $3 and ${runnableAgain('$5')}
         returning seed`,
        [scope.apiKeyId, scope.key, row.seed, requestId, abandon, this.owner],
      );
      if (taken.rows[0]) return { kind: 'run', seed: taken.rows[0].seed };
    }
    return { kind: 'in_progress' };
  }

  /** Says this process still works on the attempt, so no retry takes it over. */
  async heartbeat(scope: IdempotencyScope, seed: string): Promise<void> {
    await this.db.query(
      `update http_idempotency set heartbeat_at = now()
       where api_key_id = $1 and key = $2 and seed = $3 and owner = $4 and status is null and not retryable`,
      [scope.apiKeyId, scope.key, seed, this.owner],
    );
  }

  /** The answer a replay gives from now on. */
  async complete(scope: IdempotencyScope, seed: string, status: number, body: unknown): Promise<void> {
    const sealed = await this.keyring.encrypt(SEAL_ID, JSON.stringify(body ?? null));
    await this.db.query('update http_idempotency set status = $4, body = $5 where api_key_id = $1 and key = $2 and seed = $3', [
      scope.apiKeyId,
      scope.key,
      seed,
      status,
      sealed,
    ]);
  }

  /**
   * The attempt ended without an answer to keep (a 5xx, a stream): the same request may run it again at
   * once, with the same seed. Its events may be in the log already; a re-run finds them instead of
   * deciding again, so it answers as this attempt would have.
   */
  async markRetryable(scope: IdempotencyScope, seed: string): Promise<void> {
    await this.db.query(
      'update http_idempotency set retryable = true where api_key_id = $1 and key = $2 and seed = $3 and owner = $4 and status is null',
      [scope.apiKeyId, scope.key, seed, this.owner],
    );
  }

  private async open(body: string | null): Promise<unknown> {
    const text = body === null ? null : await this.keyring.decrypt(body);
    return text === null ? null : (JSON.parse(text) as unknown);
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < this.times.sweepEveryMs) return;
    this.lastSweep = now;
    await this.db.query('delete from http_idempotency where created_at < now() - make_interval(secs => $1)', [seconds(this.times.ttlMs)]);
  }
}
