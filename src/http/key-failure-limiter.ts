import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import { HttpError } from './errors.js';

const WINDOW_SECONDS = 60;

/** How much of a presented key a log line may show: enough to recognise a typo, never enough to use. */
export const keyPrefix = (secret: string) => secret.slice(0, 8);

/**
 * Failed key attempts per client address: after `perMinute` unknown keys in a minute the address gets 429
 * `rate_limited` for the rest of the minute, before any key is looked up. Requests with a valid key do not
 * count. Each failure is logged with the address and the key's prefix until the address is limited; then one
 * line says so.
 */
export class KeyFailureLimiter {
  private readonly failures: RateLimiterMemory;

  constructor(
    private readonly perMinute: number,
    private readonly log: Logger,
  ) {
    this.failures = new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS });
  }

  /** Throws 429 while the address is limited. */
  async check(address: string): Promise<void> {
    const state = await this.failures.get(address);
    if (state && state.consumedPoints >= this.perMinute) throw limited(state.msBeforeNext);
  }

  async failed(address: string, secret: string): Promise<void> {
    await this.count(address, 'unknown API key refused', { keyPrefix: keyPrefix(secret) });
  }

  /** A session cookie no session was ever opened with counts like an unknown key. */
  async sessionFailed(address: string): Promise<void> {
    await this.count(address, 'unknown session refused', {});
  }

  /** A webhook delivery whose signature did not verify counts like an unknown key. */
  async signatureFailed(address: string, serviceId: string): Promise<void> {
    await this.count(address, 'webhook signature refused', { serviceId });
  }

  private async count(address: string, what: string, fields: Record<string, string>): Promise<void> {
    const state = await this.failures.penalty(address);
    if (state.consumedPoints < this.perMinute) this.log.warn(what, { address, ...fields });
    else if (state.consumedPoints === this.perMinute) {
      this.log.warn(`${what}: too many failures, address limited`, { address, ...fields, seconds: Math.ceil(state.msBeforeNext / 1000) });
    }
  }
}

function limited(msBeforeNext: number) {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new HttpError(429, 'rate_limited', `too many requests with unknown API keys or bad signatures from this address; retry in ${seconds} s`, [], {
    'Retry-After': String(seconds),
  });
}
