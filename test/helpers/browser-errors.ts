import type { Test } from 'tap';
import { BrowserError, type BrowserErrorKind } from '../../src/engines/browser.js';

/** The BrowserError a call fails with; anything else (or success) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<BrowserError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BrowserError) return error;
    throw error;
  }
  throw new Error('expected a BrowserError, but it succeeded');
}

export async function rejectsWith(t: Test, promise: Promise<unknown>, kind: BrowserErrorKind, message?: RegExp, why?: string) {
  const error = await failure(promise);
  t.equal(error.kind, kind, why ?? `${kind}: ${error.message}`);
  if (message) t.match(error.message, message, `message of: ${why ?? kind}`);
  return error;
}

/** `ok`, the kind of the BrowserError, or what else was thrown: for one-line assertions. */
export const kindOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof BrowserError ? e.kind : `not a BrowserError: ${String(e)}`),
  );
