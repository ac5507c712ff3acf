import type { Context, Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HttpError } from './errors.js';
import { nulPaths } from './validation.js';

/** Deeper bodies are refused: nothing the API takes nests beyond a few levels. */
export const MAX_JSON_DEPTH = 64;

export const JSON_TYPES = ['application/json', '+json'];
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Whether JSON text nests arrays and objects deeper than `max`, in one pass over the text (brackets inside
 * strings do not count). Run before `JSON.parse`, so a hostile body costs time linear in its size and never
 * reaches the parser's recursion or the validators' walks.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

type JsonBody = Context['request']['body'];

/** The decoded body; undefined when there is none. Throws the client's error for anything else. */
export function parseJsonText(text: string): JsonBody {
  if (text.trim() === '') return undefined;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'validation_failed', `(body): nests deeper than ${MAX_JSON_DEPTH} levels`, [
      { path: '(body)', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  let body: JsonBody;
  try {
    body = JSON.parse(text) as JsonBody;
  } catch {
    throw new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
  // Postgres cannot store NUL in text or jsonb: refuse it at the door rather than fail half-way.
  const details = nulPaths(body);
  if (details.length > 0) throw new HttpError(400, 'validation_failed', `${details[0]!.path}: ${details[0]!.message}`, details);
  return body;
}

/** Bodies are JSON: one of another type would otherwise be ignored and the request judged as if it had none. */
function requireJsonType(ctx: Context) {
  const length = ctx.request.length;
  const hasBody = length === undefined ? ctx.get('transfer-encoding') !== '' : length > 0;
  if (hasBody && BODY_METHODS.includes(ctx.method) && !ctx.is(JSON_TYPES)) {
    throw new HttpError(400, 'invalid_json', 'request bodies are JSON: send Content-Type: application/json');
  }
}

/**
 * Reads a JSON body up to `limit` as text (koa-body), checks its depth, then parses it. Mounted after the key
 * check, so an anonymous request never has its body read.
 */
export function jsonBody(limit: string) {
  const readText = koaBody({
    json: false,
    text: true,
    textTypes: JSON_TYPES,
    textLimit: limit,
    multipart: false,
    urlencoded: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (error) => {
      throw error;
    },
  });
  return async (ctx: Context, next: Next) => {
    requireJsonType(ctx);
    await readText(ctx, async () => {
      const text: unknown = ctx.request.body;
      ctx.request.body = typeof text === 'string' ? parseJsonText(text) : undefined;
      await next();
    });
  };
}
