import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Next } from 'koa';
import send from 'koa-send';
import { packageRoot } from '../../package-root.js';
import { notFoundHttp } from '../errors.js';
import { PAGE_POLICY } from '../security-headers.js';

/** Where `npm run build` puts the dashboard (vite, src/dashboard/vite.config.ts). */
export const dashboardDir = () => join(packageRoot(), 'dist', 'dashboard');

const YEAR_MS = 365 * 24 * 3600_000;
const notPage = (path: string) => path === '/api' || path.startsWith('/api/') || path.startsWith('/git/') || path === '/healthz';

/**
 * The dashboard at `/`: content-hashed files under /assets/ cached for good, and index.html (never cached) for
 * every other page address, which the page's router then reads. Only its own scripts and styles may run.
 */
export function dashboardRoutes(root = dashboardDir()) {
  const built = existsSync(join(root, 'index.html'));
  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || notPage(ctx.path)) return next();
    if (!built) throw notFoundHttp('dashboard (run `npm run build`)');
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    if (ctx.path.startsWith('/assets/')) {
      try {
        await send(ctx, ctx.path, { root, immutable: true, maxage: YEAR_MS });
      } catch (error) {
        if ((error as { status?: number }).status === 404) throw notFoundHttp('file');
        throw error;
      }
      return;
    }
    await send(ctx, 'index.html', { root });
    ctx.set('Cache-Control', 'no-store');
  };
}
