import createClient, { type ClientPathsWithMethod, type MethodResponse, type Middleware } from 'openapi-fetch';
import type { paths } from '../shared/api-types.js';
import { csrfToken, session } from './session.js';

/** The API error body every endpoint answers with. */
export interface ApiError {
  error: { code: string; message: string; details: { path: string; message: string }[] };
}

// The session cookie goes with every request; writes also carry the session's CSRF token.
const csrf: Middleware = {
  onRequest({ request }) {
    const token = csrfToken.value;
    if (token && request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF-Token', token);
    return request;
  },
  // The session ended (signed out elsewhere, idle, its key revoked): back to the sign-in page.
  async onResponse({ response }) {
    if (response.status === 401 && session.value) session.value = null;
    // Two factors became required while this page was open: its one screen takes over.
    if (response.status === 403 && session.value && !session.value.mustSetUpTwoFactor) {
      const body = (await response.clone().json().catch(() => null)) as ApiError | null;
      if (body?.error?.code === 'two_factor_setup_required') session.value = { ...session.value, mustSetUpTwoFactor: true };
    }
    return response;
  },
};

/**
 * A read that never reached the server (the connection dropped, or the browser aborted it when the machine's
 * network changed) is sent once more after a moment; a write is not, since it may have been done.
 */
async function fetchReadingTwice(request: Request): Promise<Response> {
  const retry = request.method === 'GET' ? request.clone() : null;
  try {
    return await fetch(request);
  } catch (error) {
    if (!retry) throw error;
    await new Promise((r) => setTimeout(r, 250));
    return fetch(retry);
  }
}

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', fetch: fetchReadingTwice });
api.use(csrf);

/** The message of an API error answer, or of a failure to reach the API. */
export function messageOf(error: unknown): string {
  const body = error as Partial<ApiError> | undefined;
  if (body?.error?.message) return body.error.message;
  return error instanceof Error ? error.message : 'the request failed';
}

/** The JSON answer of an operation, as the client types it. */
export type GetAnswer<P extends ClientPathsWithMethod<typeof api, 'get'>> = MethodResponse<typeof api, 'get', P>;
