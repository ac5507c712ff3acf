import type { SqlClient } from '../db/sql-client.js';
import type { Keyring } from '../secrets/keyring.js';

/**
 * Not a read model (never in the log, never rebuilt): which person a provider's account signs in, by a blind
 * index of issuer and subject, like the e-mails of `people_credentials`. Kept out of the log because it is
 * sign-in material that must be deletable; an erased person's link is dropped when the account comes back.
 */
const IDENTITIES_DDL = `
create table if not exists people_identities (
  identity_index text primary key,
  user_id text not null,
  created_at timestamptz not null default now()
);
create index if not exists people_identities_user on people_identities (user_id);`;

export class IdentityLinks {
  private ready: Promise<void> | null = null;

  constructor(
    private readonly db: SqlClient,
    private readonly keyring: Keyring,
  ) {}

  private prepare(): Promise<void> {
    this.ready ??= this.db.exec(IDENTITIES_DDL);
    return this.ready;
  }

  private indexOf = (issuer: string, subject: string) => this.keyring.blindIndex('oidc-subject', `${issuer}\0${subject}`);

  async find(issuer: string, subject: string): Promise<string | null> {
    await this.prepare();
    const { rows } = await this.db.query<{ user_id: string }>('select user_id from people_identities where identity_index = $1', [this.indexOf(issuer, subject)]);
    return rows[0]?.user_id ?? null;
  }

  async link(issuer: string, subject: string, userId: string): Promise<void> {
    await this.prepare();
    await this.db.query('insert into people_identities (identity_index, user_id) values ($1, $2) on conflict (identity_index) do update set user_id = excluded.user_id', [
      this.indexOf(issuer, subject),
      userId,
    ]);
  }

  async unlink(issuer: string, subject: string): Promise<void> {
    await this.prepare();
    await this.db.query('delete from people_identities where identity_index = $1', [this.indexOf(issuer, subject)]);
  }
}
