import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import { HttpError } from './errors.js';

const WINDOW_SECONDS = 60;

/** How much of a presented key a log line may show: enough to recognise a typo, never enough to use. */
export const keyPrefix = (secret: string) => secret.slice(0, 8);

/**
 * Failed credential attempts (unknown API keys, sessions no one opened) per client address: past `perMinute`
 * failures in a minute, a FAILED attempt from the address is answered 429 `rate_limited` instead of 401.
 * A valid credential is always looked up and always answered normally, even from a limited address: the
 * address may be a shared NAT or the proxy, and keys are 256-bit, so the limit is for noise and log volume,
 * not for guessing. Each failure is logged with the address and the key's prefix until the address is
 * limited; then one line says so.
 */
export class KeyFailureLimiter {
  private readonly failures: RateLimiterMemory;

  constructor(
    private readonly perMinute: number,
    private readonly log: Logger,
  ) {
    this.failures = new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS });
  }

  /** Counts an unknown key; throws 429 when the address is past its limit (the caller answers 401 otherwise). */
  async failed(address: string, secret: string): Promise<void> {
    await this.count(address, 'unknown API key refused', { keyPrefix: keyPrefix(secret) });
  }

  /** A failed password sign-in counts like an unknown key; its e-mail is not logged. */
  async passwordFailed(address: string): Promise<void> {
    await this.count(address, 'password sign-in refused', {});
  }

  /** A session cookie no session was ever opened with counts like an unknown key. */
  async sessionFailed(address: string): Promise<void> {
    await this.count(address, 'unknown session refused', {});
  }

  private async count(address: string, what: string, fields: Record<string, string>): Promise<void> {
    const state = await this.failures.penalty(address);
    if (state.consumedPoints < this.perMinute) this.log.warn(what, { address, ...fields });
    else if (state.consumedPoints === this.perMinute) {
      this.log.warn(`${what}: too many failures, address limited`, { address, ...fields, seconds: Math.ceil(state.msBeforeNext / 1000) });
    }
    if (state.consumedPoints > this.perMinute) throw rateLimited(state.msBeforeNext, 'too many requests with unknown API keys from this address');
  }
}

/** 429 with `Retry-After`, for a failed attempt from an address or to a target past its limit. */
export function rateLimited(msBeforeNext: number, what: string, headers: Record<string, string> = {}) {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new HttpError(429, 'rate_limited', `${what}; retry in ${seconds} s`, [], { 'Retry-After': String(seconds), ...headers });
}
