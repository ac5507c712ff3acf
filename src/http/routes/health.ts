import type Router from '@koa/router';
import { z } from 'zod';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireAllProjects, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { health } from '../../health.js';
import { listParked } from '../../../projections/parked.js';
import { presentParked } from '../presenters.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { healthApi } from '../contract/health.js';

const parkedParams = z.object({ projector: z.string().min(1).max(100), eventId: z.string().min(1).max(100) });

/** Operator views: lag, parked events, the read horizon, Docker and Caddy; retry or skip a parked event. */
export function healthRoutes(router: Router, app: Slipway) {
  route(router, healthApi.get, async (ctx) => {
    ctx.body = await health(app);
  });

  route(router, healthApi.listParked, async (ctx) => {
    requireAllProjects(principalOf(ctx), 'parked events');
    ctx.body = { parked: (await listParked(app.db)).map(presentParked) };
  });

  route(router, healthApi.retryParked, async (ctx) => {
    requireAllProjects(writerOf(ctx), 'retrying a parked event');
    const { projector, eventId } = parseInput(parkedParams, ctx.params);
    try {
      if ((await app.runner.retryParked(projector, eventId)) === 'not_parked') throw new HttpError(404, 'not_found', 'parked event not found');
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError(409, 'conflict', `the event still cannot be applied: ${error instanceof Error ? error.message : String(error)}`);
    }
    ctx.body = { ok: true };
  });

  route(router, healthApi.skipParked, async (ctx) => {
    requireAllProjects(writerOf(ctx), 'skipping a parked event');
    const { projector, eventId } = parseInput(parkedParams, ctx.params);
    if (!(await app.runner.skipParked(projector, eventId))) throw new HttpError(404, 'not_found', 'parked event not found');
    ctx.body = { ok: true };
  });
}
