import { randomBytes } from 'node:crypto';
import type { PendingChecks } from './oidc-client.js';

/** A sign-in started and not yet finished: its checks, and where to land. */
export interface PendingSignIn extends PendingChecks {
  next: string;
  expiresAt: number;
}

export const PENDING_TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;
/** One address's starts push out its own oldest, never everyone else's. */
export const MAX_PENDING_PER_ADDRESS = 20;

/**
 * Sign-ins between the start and the provider's answer, in memory (a restart only asks people to click again),
 * under a random key the browser holds as a cookie; each is taken once. Bounded per address and in all.
 */
export class PendingSignIns {
  private entries = new Map<string, PendingSignIn>();
  private byAddress = new Map<string, string[]>();

  constructor(private readonly now: () => number = Date.now) {}

  add(checks: PendingChecks, next: string, address: string): string {
    this.sweep();
    const mine = this.byAddress.get(address) ?? [];
    while (mine.length >= MAX_PENDING_PER_ADDRESS) this.entries.delete(mine.shift()!);
    while (this.entries.size >= MAX_PENDING) this.entries.delete(this.entries.keys().next().value!);
    const key = randomBytes(32).toString('base64url');
    this.entries.set(key, { ...checks, next, expiresAt: this.now() + PENDING_TTL_MS });
    this.byAddress.set(address, [...mine, key]);
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
      if (entry.expiresAt > now) break;
      this.entries.delete(key);
    }
    for (const [address, keys] of this.byAddress) {
      const live = keys.filter((key) => this.entries.has(key));
      if (live.length === 0) this.byAddress.delete(address);
      else if (live.length !== keys.length) this.byAddress.set(address, live);
    }
  }
}
