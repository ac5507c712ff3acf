import type { SqlClient } from '../db/sql-client.js';

/**
 * Not a read model (never rebuilt from events, never in the log): what signs a person in. The e-mail is kept
 * only as a blind index (Keyring.blindIndex) to find the account; the password only as its scrypt hash. Erasing
 * a person deletes their row here and shreds their data key.
 */
const CREDENTIALS_DDL = `
create table if not exists people_credentials (
  user_id text primary key,
  email_index text not null unique,
  password_hash text not null,
  updated_at timestamptz not null default now()
);
alter table people_credentials add column if not exists totp_sealed text;
alter table people_credentials add column if not exists totp_pending_sealed text;
alter table people_credentials add column if not exists totp_last_step bigint;
alter table people_credentials add column if not exists recovery_hashes jsonb;`;

export interface Credential {
  userId: string;
  passwordHash: string;
}

/** A person's second factor: the TOTP secret (sealed with their data key), its last used time step, recovery code hashes. */
export interface TwoFactor {
  sealedSecret: string | null;
  sealedPending: string | null;
  lastStep: number | null;
  recoveryHashes: string[];
}

export class CredentialStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly db: SqlClient) {}

  private prepare(): Promise<void> {
    this.ready ??= this.db.exec(CREDENTIALS_DDL);
    return this.ready;
  }

  async byEmail(emailIndex: string): Promise<Credential | null> {
    await this.prepare();
    const { rows } = await this.db.query<{ user_id: string; password_hash: string }>('select user_id, password_hash from people_credentials where email_index = $1', [emailIndex]);
    return rows[0] ? { userId: rows[0].user_id, passwordHash: rows[0].password_hash } : null;
  }

  async byUser(userId: string): Promise<Credential | null> {
    await this.prepare();
    const { rows } = await this.db.query<{ password_hash: string }>('select password_hash from people_credentials where user_id = $1', [userId]);
    return rows[0] ? { userId, passwordHash: rows[0].password_hash } : null;
  }

  async emailTaken(emailIndex: string): Promise<boolean> {
    return (await this.byEmail(emailIndex)) !== null;
  }

  /** Claims the e-mail for the person; false when another person has it. */
  async create(userId: string, emailIndex: string, passwordHash: string): Promise<boolean> {
    await this.prepare();
    const { rows } = await this.db.query<{ user_id: string }>(
      `insert into people_credentials (user_id, email_index, password_hash) values ($1, $2, $3)
       on conflict (user_id) do update set email_index = excluded.email_index, password_hash = excluded.password_hash
       returning user_id`,
      [userId, emailIndex, passwordHash],
    ).catch((error: { code?: string }) => {
      // 23505: unique_violation on the e-mail.
      if (error.code === '23505') return { rows: [] };
      throw error;
    });
    return rows.length > 0;
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.prepare();
    await this.db.query('update people_credentials set password_hash = $2, updated_at = now() where user_id = $1', [userId, passwordHash]);
  }

  async twoFactorOf(userId: string): Promise<TwoFactor> {
    await this.prepare();
    const { rows } = await this.db.query<{ totp_sealed: string | null; totp_pending_sealed: string | null; totp_last_step: string | number | null; recovery_hashes: string[] | null }>(
      'select totp_sealed, totp_pending_sealed, totp_last_step, recovery_hashes from people_credentials where user_id = $1',
      [userId],
    );
    const row = rows[0];
    return {
      sealedSecret: row?.totp_sealed ?? null,
      sealedPending: row?.totp_pending_sealed ?? null,
      lastStep: row?.totp_last_step === null || row?.totp_last_step === undefined ? null : Number(row.totp_last_step),
      recoveryHashes: row?.recovery_hashes ?? [],
    };
  }

  async setPendingTwoFactor(userId: string, sealedPending: string | null): Promise<void> {
    await this.prepare();
    await this.db.query('update people_credentials set totp_pending_sealed = $2 where user_id = $1', [userId, sealedPending]);
  }

  /** The pending secret becomes the one in use, with fresh recovery codes; null turns two factors off. */
  async setTwoFactor(userId: string, sealedSecret: string | null, recoveryHashes: string[], lastStep: number | null): Promise<void> {
    await this.prepare();
    await this.db.query('update people_credentials set totp_sealed = $2, totp_pending_sealed = null, recovery_hashes = $3, totp_last_step = $4 where user_id = $1', [
      userId,
      sealedSecret,
      JSON.stringify(recoveryHashes),
      lastStep,
    ]);
  }

  /**
   * Takes a time step or a recovery code as used, once: false when another request used it first (a code is good
   * for one sign-in). `step` must be later than the last one used.
   */
  async useStep(userId: string, step: number): Promise<boolean> {
    await this.prepare();
    const { rows } = await this.db.query('update people_credentials set totp_last_step = $2 where user_id = $1 and (totp_last_step is null or totp_last_step < $2) returning user_id', [userId, step]);
    return rows.length > 0;
  }

  async useRecoveryCode(userId: string, hash: string): Promise<boolean> {
    await this.prepare();
    const { rows } = await this.db.query(
      `update people_credentials set recovery_hashes = recovery_hashes - $2::text where user_id = $1 and recovery_hashes ? $2::text returning user_id`,
      [userId, hash],
    );
    return rows.length > 0;
  }

  async delete(userId: string): Promise<void> {
    await this.prepare();
    await this.db.query('delete from people_credentials where user_id = $1', [userId]);
  }
}
