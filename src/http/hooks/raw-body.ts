import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HttpError } from '../errors.js';

/** GitHub's largest delivery: the hook routes take bodies up to this, every other route keeps its own limit. */
export const HOOK_BODY_LIMIT = 25 * 1024 * 1024;
/**
 * What all hook bodies being read at once may hold in memory: a few large deliveries, or many small ones.
 * Without it, unsigned senders could hold 25 MB each on many connections before any signature is checked.
 */
export const HOOK_BODIES_IN_FLIGHT = 64 * 1024 * 1024;

let inFlight = 0;

/**
 * The body's exact bytes (a signature is over them, not over any decoding of them); 413 beyond the limit.
 * Its declared length (or the whole limit, when it declares none) is reserved first: 503 when the hook routes
 * already hold as much as they may.
 */
export async function readRawBody(ctx: Context, limit = HOOK_BODY_LIMIT): Promise<Buffer> {
  const length = ctx.get('content-length');
  const declared = Number(length);
  const reserved = length && Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit + 1) : limit;
  if (inFlight + reserved > HOOK_BODIES_IN_FLIGHT) {
    throw new HttpError(503, 'unavailable', 'too many webhook deliveries are being received at once; retry shortly', [], { 'Retry-After': '5' });
  }
  inFlight += reserved;
  try {
    return await getRawBody(ctx.req, { limit, ...(length ? { length } : {}) });
  } finally {
    inFlight -= reserved;
  }
}
