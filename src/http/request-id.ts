import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { actorOf, principalOf } from './auth.js';

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
    ctx.state.requestIdGiven = given.success;
    ctx.set(REQUEST_ID_HEADER, id);
    try {
      await next();
    } finally {
      ctx.set(REQUEST_ID_HEADER, id);
    }
  };
}

/**
 * A request made with a project-scoped key may name its own request id, but not adopt one that events of
 * another key already carry: its events would join that key's story (`?correlationId=`). Such a request
 * keeps its id in the answer and gets a fresh correlation id. Checked once, after authentication, for writes.
 */
export function correlation(takenByOtherKey: (id: string, actor: string) => Promise<boolean>) {
  return async (ctx: Context, next: Next) => {
    const principal = principalOf(ctx);
    if (ctx.state.requestIdGiven === true && principal.projectIds !== null && ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      if (await takenByOtherKey(requestIdOf(ctx), actorOf(principal))) ctx.state.correlationId = randomUUID();
    }
    await next();
  };
}

/** The correlation id of the events a request causes: its request id, unless `correlation` gave it another. */
export function correlationIdOf(ctx: Context): string {
  const id: unknown = ctx.state.correlationId;
  return typeof id === 'string' ? id : requestIdOf(ctx);
}

export function requestIdOf(ctx: Context): string {
  const id: unknown = ctx.state.requestId;
  // Only a request that bypassed the middleware (none in the app) has none.
  return typeof id === 'string' ? id : randomUUID();
}
