import type { Context, Next } from 'koa';

const BASE = "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** JSON and files: nothing in them may run, load or frame anything. */
export const API_POLICY = `default-src 'none'; ${BASE}`;

/** Pages Slipway renders (the API reference): its own scripts, styles and data only, never inline code. */
export const PAGE_POLICY = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; ${BASE}`;

const HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * Every answer carries the headers that keep a browser from misreading, framing or leaking it, and a strict
 * Content-Security-Policy (a route that renders a page sets `PAGE_POLICY` itself). Set again at the end,
 * as a later middleware may have cleared the headers on an error.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    ctx.set(HEADERS);
    try {
      await next();
    } finally {
      ctx.set(HEADERS);
      if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', API_POLICY);
    }
  };
}
