import type { InstallationRole } from '../commands/user/roles.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

export interface OidcSettingsRow {
  issuer: string;
  client_id: string;
  name: string;
  allowed_domains: string[];
  default_role: InstallationRole | null;
  groups_claim: string | null;
  group_roles: Record<string, InstallationRole>;
  configured_at: Date | string;
}

export async function findOidcSettings(db: SqlExecutor): Promise<OidcSettingsRow | null> {
  const { rows } = await db.query<OidcSettingsRow>('select * from rm_oidc_settings where id = 1');
  return rows[0] ?? null;
}

/** People removed but not erased, with their sealed e-mails: single sign-on must not make them again. */
export async function removedPeopleEmails(db: SqlExecutor): Promise<{ id: string; sealed_email: string }[]> {
  const { rows } = await db.query<{ id: string; sealed_email: string }>(
    'select id, sealed_email from rm_users where removed_at is not null and erased_at is null and sealed_email is not null',
  );
  return rows;
}
