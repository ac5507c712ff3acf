import { HttpError } from '../errors.js';

export const SESSIONS_PER_SERVICE = 3;
export const SESSIONS_PER_INSTALLATION = 20;

/** The open terminal sessions, per service and in all: a slot is taken before the upgrade and given back at its end. */
export class ExecSessionSlots {
  private readonly perService = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly perServiceLimit = SESSIONS_PER_SERVICE,
    private readonly totalLimit = SESSIONS_PER_INSTALLATION,
  ) {}

  /** Takes a slot (429 when none is free); the function it answers gives it back, once. */
  take(serviceId: string): () => void {
    const open = this.perService.get(serviceId) ?? 0;
    if (open >= this.perServiceLimit) throw tooMany(`this service already has ${open} open terminal sessions (at most ${this.perServiceLimit}): close one first`);
    if (this.total >= this.totalLimit) throw tooMany(`the installation already has ${this.total} open terminal sessions (at most ${this.totalLimit}): close one first`);
    this.perService.set(serviceId, open + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = (this.perService.get(serviceId) ?? 1) - 1;
      if (left > 0) this.perService.set(serviceId, left);
      else this.perService.delete(serviceId);
    };
  }
}

const tooMany = (message: string) => new HttpError(429, 'too_many_sessions', message);
