import type Router from '@koa/router';
import { z } from 'zod';
import type { Slipway } from '../../slipway.js';
import { actorOf, principalOf, requireAllProjects, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { health } from '../../health.js';
import { listParked, listSkipped } from '../../catch-up/parking.js';
import { RebuildRunningError } from '../../../projections/runner.js';
import { presentParked, presentSkipped } from '../presenters.js';
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
    ctx.body = { parked: (await listParked(app.db)).map(presentParked), skipped: (await listSkipped(app.db)).map(presentSkipped) };
  });

  route(router, healthApi.retryParked, async (ctx) => {
    requireAllProjects(writerOf(ctx), 'retrying a parked event');
    const { projector, eventId } = parseInput(parkedParams, ctx.params);
    let outcome: Awaited<ReturnType<typeof app.runner.retryParked>>;
    try {
      outcome = await app.runner.retryParked(projector, eventId);
    } catch (error) {
      if (error instanceof RebuildRunningError) throw new HttpError(409, 'conflict', `the event's stream has later events, so the read model must be rebuilt, but ${error.message}; retry once it is done`);
      throw new HttpError(409, 'conflict', `the event still cannot be applied: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (outcome === 'not_parked') throw new HttpError(404, 'not_found', 'parked event not found');
    ctx.body = { ok: true, outcome };
  });

  route(router, healthApi.skipParked, async (ctx) => {
    const writer = writerOf(ctx);
    requireAllProjects(writer, 'skipping a parked event');
    const { projector, eventId } = parseInput(parkedParams, ctx.params);
    const { reason } = parseInput(healthApi.skipParked.body, ctx.request.body);
    if (!(await app.runner.skipParked(projector, eventId, { actor: actorOf(writer), reason }))) throw new HttpError(404, 'not_found', 'parked event not found');
    ctx.body = { ok: true };
  });
}
