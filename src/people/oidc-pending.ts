import { randomBytes } from 'node:crypto';
import type { PendingChecks } from './oidc-client.js';

/** A sign-in started and not yet finished: its checks, and where to land. */
export interface PendingSignIn extends PendingChecks {
  next: string;
  expiresAt: number;
}

export const PENDING_TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

/**
 * Sign-ins between the start and the provider's answer, in memory (a restart only asks people to click again),
 * under a random key the browser holds as a cookie; each is taken once. Bounded: past the limit the oldest go.
 */
export class PendingSignIns {
  private entries = new Map<string, PendingSignIn>();

  constructor(private readonly now: () => number = Date.now) {}

  add(checks: PendingChecks, next: string): string {
    this.sweep();
    while (this.entries.size >= MAX_PENDING) this.entries.delete(this.entries.keys().next().value!);
    const key = randomBytes(32).toString('base64url');
    this.entries.set(key, { ...checks, next, expiresAt: this.now() + PENDING_TTL_MS });
    return key;
  }

  /** The sign-in of `key`, once; null when unknown or expired. */
  take(key: string | undefined): PendingSignIn | null {
    if (!key) return null;
    const found = this.entries.get(key);
    this.entries.delete(key);
    return found && found.expiresAt > this.now() ? found : null;
  }

  private sweep() {
    const now = this.now();
    // Insertion order is expiry order: stop at the first that still stands.
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.entries.delete(key);
    }
  }
}
