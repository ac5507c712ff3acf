import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30 s; a code of the step before or after is taken too. */
const PERIOD = 30;
const WINDOW = 1;
export const RECOVERY_CODES = 10;

const totpOf = (secret: string, label: string) => new TOTP({ issuer: 'Slipway', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/** A new secret (160 bits, base32) and the `otpauth://` URL an app scans. */
export function newTwoFactorSecret(label: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totpOf(secret, label).toString() };
}

/** The time step `code` belongs to, when it is right for `secret` now (within one step); null otherwise. */
export function stepOfCode(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, '').validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** Ten one-time codes, shown once: `xxxx-xxxx-xxxx`. */
export const newRecoveryCodes = () => Array.from({ length: RECOVERY_CODES }, () => randomBytes(9).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, 'x').match(/.{4}/g)!.join('-'));

export const hashRecoveryCode = (code: string) => createHash('sha256').update(code.trim().toLowerCase()).digest('hex');
