import { randomBytes } from 'node:crypto';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { createPerson, normalEmail } from '../../commands/user/handlers.js';
import { findUser } from '../../projections/people-queries.js';
import { removedPeopleEmails } from '../../projections/settings-oidc-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { Keyring } from '../secrets/keyring.js';
import { domainAllowed, nameOf, OidcRefused, roleOf, verifiedEmailOf, type OidcAdmission } from './oidc-claims.js';
import type { OidcClaims } from './oidc-client.js';
import type { IdentityLinks } from './oidc-identities.js';
import type { People } from './people.js';
import type { CredentialStore } from './credentials.js';

/** What finding or making a person signing in through the provider reads and writes. */
export interface OidcDirectory {
  db: SqlExecutor;
  keyring: Keyring;
  people: People;
  credentials: CredentialStore;
  links: IdentityLinks;
}

/** The active person of `userId`; 'removed' when they were removed (not erased); null when gone for good. */
async function standing(db: SqlExecutor, userId: string): Promise<'active' | 'removed' | null> {
  const row = await findUser(db, userId);
  if (!row || row.erased_at !== null) return null;
  return row.removed_at === null ? 'active' : 'removed';
}

/** A removed (not erased) person with this e-mail: their sign-in is gone, only their sealed e-mail says who they were. */
async function wasRemoved(dir: OidcDirectory, email: string): Promise<boolean> {
  for (const row of await removedPeopleEmails(dir.db)) {
    if ((await dir.keyring.decrypt(row.sealed_email)) === email) return true;
  }
  return false;
}

/**
 * The person a verified provider account signs in: by its link, else by e-mail (then linked), else made now
 * with the role of their groups or the default. A removed person is refused, never made again.
 */
export async function personFor(
  dir: OidcDirectory,
  command: CommandContext,
  issuer: string,
  claims: OidcClaims,
  admission: OidcAdmission,
): Promise<{ userId: string; position: string | null }> {
  const email = normalEmail(verifiedEmailOf(claims));
  if (!domainAllowed(email, admission.allowedDomains)) throw new OidcRefused('domain');
  const linked = await dir.links.find(issuer, claims.sub);
  if (linked) {
    const state = await standing(dir.db, linked);
    if (state === 'active') return { userId: linked, position: null };
    if (state === 'removed') throw new OidcRefused('removed');
    await dir.links.unlink(issuer, claims.sub);
  }
  const byEmail = await dir.credentials.byEmail(dir.people.emailIndex(email));
  if (byEmail && (await standing(dir.db, byEmail.userId)) === 'active') {
    await dir.links.link(issuer, claims.sub, byEmail.userId);
    return { userId: byEmail.userId, position: null };
  }
  if (await wasRemoved(dir, email)) throw new OidcRefused('removed');
  const role = roleOf(claims, admission);
  if (!role) throw new OidcRefused('no_role');
  // No password anyone knows: the account signs in through the provider.
  const password = randomBytes(32).toString('base64url');
  const created = await createPerson(command, dir.people, { email, name: nameOf(claims, email), password, role, invitationId: null, projects: [] });
  await dir.links.link(issuer, claims.sub, created.id);
  return { userId: created.id, position: created.position };
}
