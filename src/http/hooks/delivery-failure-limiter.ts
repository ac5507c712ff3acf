import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../../logger.js';
import { rateLimited } from '../key-failure-limiter.js';

const WINDOW_SECONDS = 60;

/**
 * Refused webhook deliveries (bad signature, or a service id that has no auto-deploy: the two are one answer),
 * counted per address and per service id, apart from the API keys' limit. Past `perMinute` in a minute on
 * either count, a refused delivery is answered 429 instead of 401, and is neither logged nor recorded in the
 * service's delivery list (forgeries then cost no log line and no event). A correctly signed delivery is never
 * counted and never refused: a Git host's shared delivery addresses stay usable whatever others send from them.
 */
export class DeliveryFailureLimiter {
  private readonly byAddress: RateLimiterMemory;
  private readonly byService: RateLimiterMemory;

  constructor(
    private readonly perMinute: number,
    private readonly log: Logger,
  ) {
    this.byAddress = new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS, keyPrefix: 'address' });
    this.byService = new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS, keyPrefix: 'service' });
  }

  /**
   * Counts a refused delivery. Throws 429 once the address or the service id is past its limit; otherwise
   * logs it and returns, and the caller records it and answers 401.
   */
  async refused(address: string, serviceId: string): Promise<void> {
    const [fromAddress, toService] = await Promise.all([this.byAddress.penalty(address), this.byService.penalty(serviceId)]);
    const over = [fromAddress, toService].filter((s) => s.consumedPoints > this.perMinute);
    if (over.length > 0) {
      const msBeforeNext = Math.max(...over.map((s) => s.msBeforeNext));
      throw rateLimited(msBeforeNext, 'too many refused webhook deliveries from this address or to this service', { Connection: 'close' });
    }
    if (fromAddress.consumedPoints === this.perMinute || toService.consumedPoints === this.perMinute) {
      this.log.warn('webhook delivery refused: too many refusals, address or service limited', { address, serviceId });
    } else this.log.warn('webhook signature refused', { address, serviceId });
  }
}
