import { z } from 'zod';

/** Why `value` cannot be the base URL of an outside API, or null when it can. */
function baseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  // Slipway appends its own paths: a query or fragment would make it pick what the rest of the path is.
  if (url.search || value.includes('?')) return 'must not have a query (?…)';
  if (url.hash || value.includes('#')) return 'must not have a fragment (#…)';
  return null;
}

/** An outside API's address: an absolute http(s) URL without query, fragment or credentials; no trailing slash. */
export const baseUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = baseUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * `base` with `path` appended (`/v1/models?limit=5`). The path can only add to the base's path: a result
 * that leaves it (a `..` segment, another origin) is refused.
 */
export function appendPath(base: string, path: string): string {
  const root = new URL(base);
  const rootPath = root.pathname.replace(/\/+$/, '');
  const joined = new URL(`${root.origin}${rootPath}/${path.replace(/^\/+/, '')}`);
  if (joined.origin !== root.origin || !joined.pathname.startsWith(`${rootPath}/`)) throw new Error(`the path ${path} leaves ${base}`);
  return joined.toString();
}

/** A value that goes into a URL path as one segment, encoded; `.` and `..` (which URLs resolve away) are refused. */
export function pathSegment(value: string): string {
  const encoded = encodeURIComponent(value);
  if (encoded === '.' || encoded === '..' || encoded === '') throw new Error(`${JSON.stringify(value)} cannot be a path segment`);
  return encoded;
}
