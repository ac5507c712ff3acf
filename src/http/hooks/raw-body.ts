import type { Context } from 'koa';
import getRawBody from 'raw-body';

/** GitHub's largest delivery: the hook routes take bodies up to this, every other route keeps its own limit. */
export const HOOK_BODY_LIMIT = 25 * 1024 * 1024;

/** The body's exact bytes (a signature is over them, not over any decoding of them); 413 beyond the limit. */
export function readRawBody(ctx: Context, limit = HOOK_BODY_LIMIT): Promise<Buffer> {
  const length = ctx.get('content-length');
  return getRawBody(ctx.req, { limit, ...(length ? { length } : {}) });
}
