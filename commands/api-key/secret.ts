import { createHash, randomBytes } from 'node:crypto';

/** Keys are 32 random bytes; only their SHA-256 is stored, which is enough for a secret of that entropy. */
export function generateApiKeySecret(): { secret: string; prefix: string; hash: string } {
  const secret = `slw_${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, 10), hash: hashApiKeySecret(secret) };
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
