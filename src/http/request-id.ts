import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { z } from 'zod';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What a client may send as its own request id: 1–200 printable ASCII characters, no spaces. */
const clientRequestId = z.string().regex(/^[\x21-\x7e]{1,200}$/);

/**
 * Every request gets an id (the client's, when it sent a sane one) and every answer carries it, errors
 * included: it is the correlation id of every event the request causes. Registered before the error
 * handler, and set again at the end in case a later middleware cleared the headers.
 */
export function requestId() {
  return async (ctx: Context, next: Next) => {
    const given = clientRequestId.safeParse(ctx.get(REQUEST_ID_HEADER));
    const id = given.success ? given.data : randomUUID();
    ctx.state.requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    try {
      await next();
    } finally {
      ctx.set(REQUEST_ID_HEADER, id);
    }
  };
}

export function requestIdOf(ctx: Context): string {
  const id: unknown = ctx.state.requestId;
  // Only a request that bypassed the middleware (none in the app) has none.
  return typeof id === 'string' ? id : randomUUID();
}
