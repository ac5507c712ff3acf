import createClient from 'openapi-fetch';
import type { paths } from '../../shared/api-types.js';
import { isLoopbackHost } from '../../network.js';
import { resolveCredentials } from './credentials.js';

export type Api = ReturnType<typeof createClient<paths>>;

/** A failure to show as `slipway: <message>` with exit code 1. */
export class CliError extends Error {}

/** The innermost cause's words (fetch says only "fetch failed"; its cause says ECONNREFUSED). */
function reasonOf(error: unknown): string {
  let e = error as { message?: string; code?: string; cause?: unknown } | undefined;
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.code ?? e?.message ?? String(error);
}

/** The error body every endpoint answers, whatever the status. */
interface ErrorBody {
  error?: { code?: string; message?: string };
}

// Read once per command: the environment and the credentials file do not change while it runs.
let credentials: { url: string; key: string | null } | undefined;
const current = () => (credentials ??= resolveCredentials());

let insecure = false;
/** `--insecure`: plain HTTP to another machine is allowed for this command. */
export const allowInsecure = () => void (insecure = true);

/** A key sent in clear over the network is a key given away: plain HTTP only to this machine, or when asked. */
export function refuseClearText(url: string, what = 'the API key') {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`${url} is not a URL: give the server as https://host or http://localhost:port`);
  }
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname) && !insecure) {
    throw new CliError(
      `refusing to send ${what} in clear to ${parsed.host}: use https:// (the apiDomain setting serves the API over HTTPS), or --insecure if this network is trusted`,
    );
  }
}

/** The dashboard's page at `path` on the server this CLI talks to: what a person opens (signing in first). */
export const dashboardLink = (path: string) => `${current().url}${path}`;

/**
 * The client of the server in `SLIPWAY_URL` (or the one `slipway login` saved) with its key, or of the
 * server and key given (`slipway login` checks them before saving).
 */
export function apiClient(given?: { url: string; key: string }): { api: Api; url: string; key: string } {
  const { url, key } = given ?? current();
  refuseClearText(url);
  if (!key) throw new CliError('no API key: set SLIPWAY_KEY or run `slipway login`');
  const api = createClient<paths>({ baseUrl: url, headers: { authorization: `Bearer ${key}` } });
  return { api, url, key };
}

/**
 * The data of a call's answer, or a CliError with the API's own message (and its code) when it failed,
 * or with what went wrong on the way when the server could not be reached.
 */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, url = current().url): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (error) {
    throw new CliError(`cannot reach Slipway at ${url}: ${reasonOf(error)}`);
  }
  if (result.data !== undefined && result.response.ok) return result.data;
  const body = result.error as ErrorBody | undefined;
  const message = body?.error?.message ?? `HTTP ${result.response.status}`;
  throw new CliError(`${message}${body?.error?.code ? ` (${body.error.code}, HTTP ${result.response.status})` : ''}`);
}
