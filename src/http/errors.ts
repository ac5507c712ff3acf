import type { Context, Next } from 'koa';
import { DomainError, type ErrorDetail } from '../../commands/shared/domain-error.js';
import type { Logger } from '../logger.js';
import { ReadModelBehindError } from '../../projections/runner.js';
import { ReadModelUnavailableError } from '../../projections/read-model-errors.js';
import { BrowserError, type BrowserErrorKind } from '../engines/browser.js';
import { PasswordChecksBusy } from '../people/passwords.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message: string) => new HttpError(401, 'unauthorized', message);
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFoundHttp = (what: string) => new HttpError(404, 'not_found', `${what} not found`);

const DOMAIN_STATUS = { validation_failed: 400, not_found: 404, conflict: 409, forbidden: 403, forbidden_destination: 400, invitation_gone: 410 } as const;

interface ThrownHttp {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  expose?: boolean;
}

/** Body-parser and router errors carry a status; map the ones a client causes to our error codes. */
function fromStatusError(error: ThrownHttp): HttpError | null {
  const status = error.status ?? error.statusCode;
  if (!status || status < 400 || status >= 500) return null;
  if (status === 413) return new HttpError(413, 'payload_too_large', 'request body is too large');
  if (status === 400 && (error.type === 'entity.parse.failed' || /JSON|json|Unexpected/.test(error.message ?? ''))) {
    return new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
  // An unsupported Content-Encoding or charset (415), a body shorter than its Content-Length (400): the body
  // cannot be read as JSON. The README's error table has no other code for a body.
  if (status === 400 || status === 415) {
    return new HttpError(400, 'invalid_json', `request body cannot be read as JSON: ${error.message ?? 'unreadable body'}`);
  }
  if (status === 405) return methodNotAllowed();
  if (status === 404) return noSuchEndpoint();
  return new HttpError(status, 'bad_request', error.expose && error.message ? error.message : 'bad request');
}

const noSuchEndpoint = () => new HttpError(404, 'not_found', 'no such endpoint');
const methodNotAllowed = () => new HttpError(405, 'method_not_allowed', 'method not allowed on this endpoint');

/**
 * The router answers a known path with a method it lacks with 405 (a method it does not know at all, e.g.
 * TRACE, with 501) and an `Allow` header, but no body. Both get the error body; a path with no methods
 * (no endpoint at all) is a 404. The `Allow` header stays.
 */
function unansweredStatus(ctx: Context): HttpError | null {
  if (ctx.body !== undefined && ctx.body !== null) return null;
  if (ctx.status === 404) return noSuchEndpoint();
  if (ctx.status === 405 || ctx.status === 501) {
    return ctx.response.get('allow') ? methodNotAllowed() : noSuchEndpoint();
  }
  return null;
}

/** What a database engine said, as the client's error: the engine's own message, never a 500. */
const BROWSER_STATUS: Record<BrowserErrorKind, [number, string]> = {
  not_found: [404, 'not_found'],
  invalid: [400, 'validation_failed'],
  engine: [422, 'engine_error'],
  timeout: [422, 'query_timeout'],
  unavailable: [503, 'unavailable'],
};

function toHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof BrowserError) {
    const [status, code] = BROWSER_STATUS[error.kind];
    return new HttpError(status, code, error.message, [], status === 503 ? { 'Retry-After': '2' } : {});
  }
  if (error instanceof ReadModelBehindError) return new HttpError(503, 'unavailable', error.message, [], { 'Retry-After': '1' });
  if (error instanceof PasswordChecksBusy) return new HttpError(429, 'rate_limited', 'too many password sign-ins at once; retry in 1 s', [], { 'Retry-After': '1' });
  if (error instanceof ReadModelUnavailableError) {
    return new HttpError(503, 'unavailable', error.message, [], error.retryAfterSeconds === null ? {} : { 'Retry-After': String(error.retryAfterSeconds) });
  }
  if (error instanceof DomainError) return new HttpError(DOMAIN_STATUS[error.code], error.code, error.message, error.details);
  if (error && typeof error === 'object') return fromStatusError(error as ThrownHttp);
  return null;
}

/** One error body everywhere: `{ error: { code, message, details } }`. */
/** A path as a log line may show it: an invitation's token is a credential, and stays out. */
export const loggablePath = (path: string) => path.replace(/^(\/api\/invitations\/)[^/]+(\/accept)$/, '$1…$2');

export function errorHandler(log: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      const unanswered = unansweredStatus(ctx);
      if (unanswered) throw unanswered;
    } catch (thrown) {
      const error = toHttpError(thrown);
      if (error) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = { error: { code: error.code, message: error.message, details: error.details } };
        return;
      }
      log.error('request failed', { method: ctx.method, path: loggablePath(ctx.path), error: String((thrown as Error)?.stack ?? thrown) });
      ctx.status = 500;
      ctx.body = { error: { code: 'internal_error', message: 'internal error', details: [] } };
    }
  };
}
