import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Passwords shorter than this are refused: the floor, and NIST's advice for a sole factor is no lower. */
export const MIN_PASSWORD_LENGTH = 12;

/** scrypt's cost: about 60–120 ms of one core here, the figure `npm run bench -- people` prints. */
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } satisfies ScryptOptions;
const KEY_LENGTH = 32;

/**
 * scrypt runs on libuv's pool, which file reads and DNS share: at most RUNNING at once, at most WAITING queued
 * behind them, and beyond that the caller is told to come back (a flood of sign-ins must not stall the server).
 */
const RUNNING = 2;
const WAITING = 64;
let running = 0;
const queue: (() => void)[] = [];

export class PasswordChecksBusy extends Error {
  override readonly name = 'PasswordChecksBusy';
}

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= RUNNING) {
    if (queue.length >= WAITING) throw new PasswordChecksBusy('too many password checks at once');
    await new Promise<void>((resolve) => queue.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    const next = queue.shift();
    if (next) next();
    else running--;
  }
}

const derive = (password: string, salt: Buffer, cost: ScryptOptions) =>
  slot(() => new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, cost, (error, key) => (error ? reject(error) : resolve(key)))));

/** `scrypt$N$r$p$salt$hash`: the cost travels with the hash, so a later, dearer cost still checks old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; a malformed hash is a mismatch. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: COST.maxmem });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches, checked when no account has the e-mail: an unknown e-mail costs what a wrong password does. */
let decoy: Promise<string> | null = null;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(randomBytes(24).toString('base64url')));
