import type { MAIL_TLS } from '../commands/settings/mail.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

export interface MailSettingsRow {
  host: string;
  port: number;
  tls: (typeof MAIL_TLS)[number];
  username: string | null;
  password_set: boolean;
  from_address: string;
  changed_at: Date | string;
}

export async function findMailSettings(db: SqlExecutor): Promise<MailSettingsRow | null> {
  const { rows } = await db.query<MailSettingsRow>('select host, port, tls, username, password_set, from_address, changed_at from rm_mail_settings where id = 1');
  return rows[0] ?? null;
}
