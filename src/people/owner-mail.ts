import { listUsers } from '../../projections/people-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { Mailer, MailOutcome } from '../integrations/mail/mailer.js';
import type { Keyring } from '../secrets/keyring.js';
import type { OwnerMail } from './sign-in-alert.js';

/** Mail to the installation's owners now (their e-mails opened from the read model), through `mailer`. */
export function ownerMail(db: SqlExecutor, keyring: Keyring, mailer: Mailer): OwnerMail {
  return {
    async toOwners(message): Promise<MailOutcome> {
      const owners = (await listUsers(db)).filter((u) => u.role === 'owner' && u.sealed_email !== null);
      const emails = (await Promise.all(owners.map((o) => keyring.decrypt(o.sealed_email!)))).filter((e): e is string => e !== null);
      if (emails.length === 0) return { sent: false, reason: 'no owner has an e-mail' };
      return mailer.send({ to: emails, ...message });
    },
  };
}
