import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { principalOf } from './auth.js';
import { errorHandler, HttpError } from './errors.js';
import type { IdempotencyScope, IdempotencyStore } from './idempotency-store.js';
import { requestIdOf } from './request-id.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const GUARDED_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

const idempotencyKey = z.string().regex(/^[\x20-\x7e]{1,200}$/, 'must be 1 to 200 printable ASCII characters');

/** JSON with every object's keys sorted: two bodies that mean the same have the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What tells two requests apart: method, path and body (as JSON, keys sorted), hashed. */
export const requestFingerprint = (method: string, path: string, body: unknown) =>
  createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');

function keyOf(ctx: Context): string | null {
  const raw = ctx.request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const parsed = idempotencyKey.safeParse(Array.isArray(raw) ? raw.join(', ') : raw);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'is invalid';
  throw new HttpError(400, 'validation_failed', `${IDEMPOTENCY_HEADER}: ${message}`, [{ path: IDEMPOTENCY_HEADER, message }]);
}

/** The answer a retry can be given again: the JSON the request produced, not a server failure or a stream. */
function keptAnswer(ctx: Context): { body: unknown } | null {
  if (ctx.status >= 500) return null;
  const body: unknown = ctx.body;
  if (body === null || body === undefined) return { body: null };
  if (typeof body === 'string') {
    try {
      return { body: JSON.parse(body) as unknown };
    } catch {
      return null;
    }
  }
  if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return null;
  return { body };
}

/**
 * Idempotency-Key on writes, as Stripe has it: per API key, the first request with a key runs and its
 * answer is kept for a day; the same request again gets that answer (`Idempotent-Replayed: true`) and
 * changes nothing; another request with the key is refused. A 5xx is not kept: the same request with the key
 * runs again with the same seed, so it finds what the failed attempt appended and answers as it would have.
 * Runs after authentication (keys are per API key) and maps errors itself, to keep the answer they make.
 */
export function idempotency(store: IdempotencyStore, log: Logger) {
  const answer = errorHandler(log);
  return async (ctx: Context, next: Next) => {
    if (!GUARDED_METHODS.has(ctx.method)) return next();
    const key = keyOf(ctx);
    if (key === null) return next();
    // A key's records stay under its id as before; a person's under `user:<id>`.
    const principal = principalOf(ctx);
    const scope: IdempotencyScope = { apiKeyId: principal.keyId ?? principal.actor, key };
    const claim = await store.claim(scope, requestFingerprint(ctx.method, ctx.path, ctx.request.body), requestIdOf(ctx));
    switch (claim.kind) {
      case 'mismatch':
        throw new HttpError(422, 'idempotency_key_reused', `${IDEMPOTENCY_HEADER} ${key} was used for a different request`);
      case 'in_progress':
        throw new HttpError(409, 'conflict', `a request with ${IDEMPOTENCY_HEADER} ${key} is still in progress; retry later`);
      case 'replay':
        ctx.status = claim.status;
        ctx.body = claim.body;
        ctx.set('Idempotent-Replayed', 'true');
        ctx.set('Idempotent-Original-Request-Id', claim.requestId);
        return;
      case 'run':
        break;
    }
    ctx.state.idempotencySeed = claim.seed;
    // A request may run longer than a dead one would hold its key (a restore): it says it is alive.
    const heartbeat = setInterval(() => {
      store.heartbeat(scope, claim.seed).catch((error: unknown) => log.error('could not refresh an idempotency key', { error: String(error) }));
    }, store.heartbeatEveryMs);
    try {
      await answer(ctx, next);
    } catch (error) {
      await store.markRetryable(scope, claim.seed).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
    try {
      const kept = keptAnswer(ctx);
      if (kept) await store.complete(scope, claim.seed, ctx.status, kept.body);
      else await store.markRetryable(scope, claim.seed);
    } catch (error) {
      // The answer stands; the key stays "in progress" until its heartbeat is old enough to take it for abandoned.
      log.error('could not keep the answer of an idempotent request', { error: String(error) });
    }
  };
}

/** The seed an idempotent request's ids derive from; null without an Idempotency-Key. */
export function idempotencySeedOf(ctx: Context): string | null {
  const seed: unknown = ctx.state.idempotencySeed;
  return typeof seed === 'string' ? seed : null;
}
