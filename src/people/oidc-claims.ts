import type { InstallationRole } from '../../commands/user/roles.js';
import type { OidcClaims } from './oidc-client.js';

/** Why a sign-in through the provider was refused: the sign-in page says it in a sentence of its own. */
export type OidcRefusal = 'not_configured' | 'expired' | 'denied' | 'invalid' | 'provider' | 'email' | 'domain' | 'no_role' | 'removed' | 'failed';

export class OidcRefused extends Error {
  override readonly name = 'OidcRefused';
  constructor(readonly reason: OidcRefusal) {
    super(`single sign-on refused: ${reason}`);
  }
}

/** What decides who may come in and as what. */
export interface OidcAdmission {
  allowedDomains: readonly string[];
  defaultRole: InstallationRole | null;
  groupsClaim: string | null;
  groupRoles: Readonly<Record<string, InstallationRole>>;
}

const RANK: Record<InstallationRole, number> = { member: 1, admin: 2, owner: 3 };

/** The person's e-mail, when the provider vouches for it (`email_verified`); else refused. */
export function verifiedEmailOf(claims: OidcClaims): string {
  const email = claims.email;
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email.trim()) || !verified) throw new OidcRefused('email');
  return email.trim().toLowerCase();
}

export function domainAllowed(email: string, allowedDomains: readonly string[]): boolean {
  return allowedDomains.length === 0 || allowedDomains.includes(email.slice(email.lastIndexOf('@') + 1));
}

/** The person's groups (a list, or one string) as the configured claim has them. */
export function groupsOf(claims: OidcClaims, groupsClaim: string | null): string[] {
  const raw = groupsClaim ? claims[groupsClaim] : undefined;
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : [];
}

/** A first sign-in's role: the highest any of their groups maps to, else the default; null: none. */
export function roleOf(claims: OidcClaims, admission: OidcAdmission): InstallationRole | null {
  const roles = groupsOf(claims, admission.groupsClaim)
    .filter((group) => Object.hasOwn(admission.groupRoles, group))
    .map((group) => admission.groupRoles[group]!);
  return roles.sort((a, b) => RANK[b] - RANK[a])[0] ?? admission.defaultRole;
}

/** The name a new person gets: the provider's, else their e-mail's local part. */
export function nameOf(claims: OidcClaims, email: string): string {
  const given = typeof claims.name === 'string' ? claims.name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ').trim() : '';
  return (given || email.slice(0, email.indexOf('@'))).slice(0, 100);
}

/** Where to land after signing in: a path of this site only (no scheme, no `//host`, no backslash), else `/`. */
export function landingPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/') || next.startsWith('//')) return '/';
  if (/[\\\p{Cc}]/u.test(next)) return '/';
  return next;
}
