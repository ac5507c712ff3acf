import type { Test } from 'tap';

/** What README's error table promises for each status. */
export type ErrorCode =
  | 'invalid_json'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unavailable'
  | 'engine_error'
  | 'query_timeout'
  | 'rate_limited'
  | 'forbidden_destination'
  | 'invitation_gone'
  | 'two_factor_required'
  | 'two_factor_setup_required';

/**
 * The exact status and code, and the one error body shape `{ error: { code, message, details } }`:
 * nothing else at either level, a message that says something, every detail a `{ path, message }`.
 */
export function assertError(t: Test, response: { status: number; body: any }, status: number, code: ErrorCode, label: string) {
  t.equal(response.status, status, `${label}: status ${status}`);
  const body = response.body;
  const shaped =
    typeof body === 'object' && body !== null && Object.keys(body).join() === 'error' &&
    Object.keys(body.error).sort().join() === 'code,details,message';
  t.ok(shaped, `${label}: the body is exactly { error: { code, message, details } } (${JSON.stringify(body).slice(0, 200)})`);
  if (!shaped) return;
  t.equal(body.error.code, code, `${label}: code ${code}`);
  t.ok(typeof body.error.message === 'string' && body.error.message.length > 0, `${label}: a message`);
  const details = body.error.details as unknown[];
  t.ok(
    Array.isArray(details) &&
      details.every((d) => typeof d === 'object' && d !== null && Object.keys(d).sort().join() === 'message,path' &&
        typeof (d as { path: unknown }).path === 'string' && typeof (d as { message: unknown }).message === 'string'),
    `${label}: details are { path, message }`,
  );
  // README: a validation failure lists every problem in details.
  if (code === 'validation_failed') t.ok(details.length > 0, `${label}: the problems are listed in details`);
}

/** The `path`s of a validation failure's details, in order. */
export const detailPaths = (response: { body: any }): string[] => (response.body?.error?.details ?? []).map((d: { path: string }) => d.path);
