import type { PeopleCredentials } from '../../commands/user/handlers.js';
import { normalEmail } from '../../commands/user/handlers.js';
import type { UserRow } from '../../projections/people-queries.js';
import type { Keyring } from '../secrets/keyring.js';
import type { CredentialStore } from './credentials.js';
import { decoyHash, hashPassword, verifyPassword } from './passwords.js';
import { hashRecoveryCode, newRecoveryCodes, newTwoFactorSecret, stepOfCode } from './two-factor.js';
import { userKeyOf } from '../../commands/user/handlers.js';
import { extendStreak, startStreak, type FailureStreak, type SignInAlerts } from './sign-in-alert.js';

/** What a right password still needs: nothing, a code that was not sent, or a code that was wrong or used. */
export type SecondFactor = 'passed' | 'required' | 'wrong';

/** Wrong guesses at one account before each further wrong one waits, doubling up to MAX_DELAY_MS. */
const FREE_GUESSES = 3;
const MAX_DELAY_MS = 8_000;

export interface PersonView {
  id: string;
  email: string | null;
  name: string;
  role: UserRow['role'];
  twoFactor: boolean;
  createdAt: string;
}

/**
 * People's sign-in and their sealed details: the credentials table behind the command handlers' interface, the
 * password check, and the opening of e-mails and names for answers.
 */
export class People implements PeopleCredentials {
  /** Recent wrong guesses per account (by e-mail index), forgotten after a whole sign-in (password and second factor). */
  private guesses = new Map<string, FailureStreak>();

  /** `alerts`: who tells the owners of repeated failures at an account (none: nobody is told). */
  constructor(
    private readonly credentials: CredentialStore,
    private readonly keyring: Keyring,
    private readonly alerts: SignInAlerts | null = null,
  ) {
    // Made now, not at the first unknown e-mail, whose answer would otherwise take one scrypt longer.
    void decoyHash();
  }

  emailIndex = (email: string) => this.keyring.blindIndex('email', normalEmail(email));
  hashPassword = (password: string) => hashPassword(password);
  create = (userId: string, emailIndex: string, passwordHash: string) => this.credentials.create(userId, emailIndex, passwordHash);
  emailTaken = (emailIndex: string) => this.credentials.emailTaken(emailIndex);
  setPassword = (userId: string, passwordHash: string) => this.credentials.setPassword(userId, passwordHash);
  delete = (userId: string) => this.credentials.delete(userId);

  /**
   * The person whose e-mail and password these are, or null. An unknown e-mail costs one scrypt, as a wrong
   * password does; wrong guesses at one account past the first few wait longer each time, but a right password
   * is answered at once: someone else's guesses never lock the owner out. `from`: the client's address, for an alert.
   */
  async signIn(email: string, password: string, from: string | null = null): Promise<string | null> {
    const index = this.emailIndex(email);
    const found = await this.credentials.byEmail(index);
    const right = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    // The streak ends only once the second factor passes too (secondFactor): a known password does not reset it.
    if (found && right) return found.userId;
    await this.guessedWrong(index, from, found ? { userId: found.userId, email: normalEmail(email) } : null);
    return null;
  }

  /**
   * Counts a wrong guess at the account of `index` (`account`: null for an unknown e-mail); past the first few,
   * the answer waits longer each time. The alert is decided before the wait and sent without holding it up.
   */
  private async guessedWrong(index: string, from: string | null, account: { userId: string; email: string } | null): Promise<void> {
    const streak = extendStreak(this.guesses.get(index) ?? startStreak(new Date()), from);
    const wrong = streak.count;
    // Unknown e-mails are counted too, or their quicker answer would tell them apart; the map is bounded.
    if (this.guesses.size > 10_000) this.guesses.clear();
    this.guesses.set(index, streak);
    if (account) this.alerts?.failed(account.userId, account.email, streak);
    if (wrong > FREE_GUESSES) await new Promise((r) => setTimeout(r, Math.min(MAX_DELAY_MS, 250 * 2 ** (wrong - FREE_GUESSES))));
  }

  /**
   * The second factor of a person whose password was right: passed when they have none, or when `code` is a
   * current code of their app not used before (each time step once) or one of their unused recovery codes.
   * Passing ends the account's streak of wrong guesses; a wrong code extends it.
   */
  async secondFactor(userId: string, email: string, code: string | undefined, from: string | null = null): Promise<SecondFactor> {
    const index = this.emailIndex(email);
    const factor = await this.credentials.twoFactorOf(userId);
    const passed = () => (this.guesses.delete(index), 'passed' as const);
    if (factor.sealedSecret === null) return passed();
    if (!code) return 'required';
    const secret = await this.keyring.decrypt(factor.sealedSecret);
    const step = secret === null ? null : stepOfCode(secret, code.trim());
    if (step !== null ? await this.credentials.useStep(userId, step) : await this.credentials.useRecoveryCode(userId, hashRecoveryCode(code))) return passed();
    await this.guessedWrong(index, from, { userId, email: normalEmail(email) });
    return 'wrong';
  }

  /** A new secret, pending until a code of it confirms it; sealed with the person's data key. */
  async startTwoFactor(userId: string, label: string): Promise<{ secret: string; otpauthUrl: string }> {
    const created = newTwoFactorSecret(label);
    await this.credentials.setPendingTwoFactor(userId, await this.keyring.encrypt(userKeyOf(userId), created.secret));
    return created;
  }

  /** The pending secret in use once `code` is right for it: the ten recovery codes, shown once; null: wrong code. */
  async confirmTwoFactor(userId: string, code: string): Promise<string[] | null> {
    const { sealedPending } = await this.credentials.twoFactorOf(userId);
    const secret = sealedPending === null ? null : await this.keyring.decrypt(sealedPending);
    const step = secret === null ? null : stepOfCode(secret, code.trim());
    if (step === null) return null;
    const codes = newRecoveryCodes();
    await this.credentials.setTwoFactor(userId, sealedPending, codes.map(hashRecoveryCode), step);
    return codes;
  }

  disableTwoFactor(userId: string): Promise<void> {
    return this.credentials.setTwoFactor(userId, null, [], null);
  }

  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const found = await this.credentials.byUser(userId);
    return verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
  }

  /** What answers show of a person; an erased one is "deleted user <id>". */
  async view(row: UserRow): Promise<PersonView> {
    const open = async (sealed: string | null) => (sealed === null ? null : this.keyring.decrypt(sealed));
    const [email, name] = await Promise.all([open(row.sealed_email), open(row.sealed_name)]);
    return { id: row.id, email, name: name ?? `deleted user ${row.id}`, role: row.role, twoFactor: row.two_factor, createdAt: new Date(row.created_at).toISOString() };
  }

  openSealed(sealed: string): Promise<string | null> {
    return this.keyring.decrypt(sealed);
  }
}
