import type { Context, Next } from 'koa';
import { DomainError, type ErrorDetail } from '../../commands/shared/domain-error.js';
import type { Logger } from '../logger.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export const unauthorized = (message: string) => new HttpError(401, 'unauthorized', message);
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFoundHttp = (what: string) => new HttpError(404, 'not_found', `${what} not found`);

const DOMAIN_STATUS = { validation_failed: 400, not_found: 404, conflict: 409, forbidden: 403 } as const;

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
  if (status === 415) return new HttpError(415, 'unsupported_media_type', error.message ?? 'unsupported media type');
  if (status === 400 && (error.type === 'entity.parse.failed' || /JSON|json|Unexpected/.test(error.message ?? ''))) {
    return new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (status === 405) return new HttpError(405, 'method_not_allowed', error.message ?? 'method not allowed');
  if (status === 404) return new HttpError(404, 'not_found', 'no such endpoint');
  return new HttpError(status, 'bad_request', error.expose && error.message ? error.message : 'bad request');
}

function toHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return new HttpError(DOMAIN_STATUS[error.code], error.code, error.message, error.details);
  if (error && typeof error === 'object') return fromStatusError(error as ThrownHttp);
  return null;
}

/** One error body everywhere: `{ error: { code, message, details } }`. */
export function errorHandler(log: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'not_found', 'no such endpoint');
    } catch (thrown) {
      const error = toHttpError(thrown);
      if (error) {
        ctx.status = error.status;
        ctx.body = { error: { code: error.code, message: error.message, details: error.details } };
        return;
      }
      log.error('request failed', { method: ctx.method, path: ctx.path, error: String((thrown as Error)?.stack ?? thrown) });
      ctx.status = 500;
      ctx.body = { error: { code: 'internal_error', message: 'internal error', details: [] } };
    }
  };
}
