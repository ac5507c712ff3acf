import type { MailOutcome } from '../integrations/mail/mailer.js';
import type { Logger } from '../logger.js';

/** Consecutive wrong passwords or codes at one account before its owners are told. */
export const ALERT_AFTER = 5;
/** At most one alert per account in this long. */
export const ALERT_QUIET_MS = 3_600_000;
/** Distinct addresses a streak remembers (and an alert names). */
const MAX_ADDRESSES = 10;

/** The wrong guesses at one account since its last right sign-in. */
export interface FailureStreak {
  count: number;
  since: Date;
  addresses: string[];
}

export const startStreak = (at: Date): FailureStreak => ({ count: 0, since: at, addresses: [] });

/** One more wrong guess from `address` (null: not known). */
export function extendStreak(streak: FailureStreak, address: string | null): FailureStreak {
  const known = address === null || streak.addresses.includes(address) || streak.addresses.length >= MAX_ADDRESSES;
  return { ...streak, count: streak.count + 1, addresses: known ? streak.addresses : [...streak.addresses, address] };
}

/** Mail to every owner of the installation; injected, so the alert knows nothing of SMTP or the read models. */
export interface OwnerMail {
  toOwners(message: { subject: string; text: string }): Promise<MailOutcome>;
}

export const alertText = (email: string, streak: FailureStreak) =>
  `${streak.count} failed sign-ins for ${email} from ${streak.addresses.join(', ') || 'an unknown address'} since ${streak.since.toISOString()}`;

/**
 * Tells the owners when someone keeps guessing at an account: once its streak reaches ALERT_AFTER, at most once
 * an hour per account. Sending never holds up an answer; alerts go out one after another.
 */
export class SignInAlerts {
  private lastAlert = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly mail: OwnerMail,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A wrong guess at the account of `userId` (whose e-mail is `email`), its streak counted. */
  failed(userId: string, email: string, streak: FailureStreak): void {
    if (streak.count < ALERT_AFTER) return;
    const now = this.now();
    const last = this.lastAlert.get(userId);
    if (last !== undefined && now - last < ALERT_QUIET_MS) return;
    if (this.lastAlert.size > 10_000) this.lastAlert.clear();
    this.lastAlert.set(userId, now);
    const text = alertText(email, streak);
    this.queue = this.queue.then(() => this.send(userId, text, streak));
  }

  /** Settles once every alert decided so far was sent or given up. */
  settled(): Promise<void> {
    return this.queue;
  }

  private async send(userId: string, text: string, streak: FailureStreak): Promise<void> {
    const sent = await this.mail.toOwners({ subject: `Slipway: ${streak.count} failed sign-ins`, text: `${text}.\n\nA right password still signs in at once; wrong ones wait longer each time. If this was not the account's person, consider a new password and two factors.` }).catch(
      (error: unknown) => ({ sent: false as const, reason: String(error) }),
    );
    // The log names the account by id: an e-mail in a log line could not be erased.
    if (sent.sent) this.log.info('told the owners of failed sign-ins', { userId, failures: streak.count, addresses: streak.addresses });
    else this.log.warn('failed sign-ins: the owners could not be told by mail', { userId, failures: streak.count, addresses: streak.addresses, since: streak.since.toISOString(), reason: sent.reason });
  }
}
