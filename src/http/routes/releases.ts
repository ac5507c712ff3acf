import type Router from '@koa/router';
import { moveService, rerunCurrentRelease, rollbackService } from '../../../commands/release/handlers.js';
import { requireNodeForDatabase } from '../node-choice.js';
import { findDeployment } from '../../../projections/deployment-queries.js';
import { listReleasesOf } from '../../../projections/release-queries.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, visibleService, writerOf } from '../auth.js';
import { route } from '../contract/endpoint.js';
import { releasesApi } from '../contract/releases.js';
import { notFoundHttp } from '../errors.js';
import { presentQueuedDeployment, presentRelease } from '../presenters.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

export function releaseRoutes(router: Router, app: Slipway) {
  /** Answers with the queued deployment, once the read models have it. */
  const queued = async (id: string, position: string | null) => {
    await app.settle(position);
    const row = await findDeployment(app.db, id);
    if (!row) throw notFoundHttp('deployment');
    return { deployment: presentQueuedDeployment(row) };
  };

  route(router, releasesApi.list, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    ctx.body = { releases: (await listReleasesOf(app.db, service.id)).map(presentRelease) };
  });

  route(router, releasesApi.rollback, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { releaseId, config } = parseInput(releasesApi.rollback.body, ctx.request.body ?? {});
    const { id, position } = await rollbackService(requestContext(app, ctx, principal), service.id, releaseId, config);
    ctx.body = await queued(id, position);
  });

  route(router, releasesApi.move, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { nodeId } = parseInput(releasesApi.move.body, ctx.request.body ?? {});
    await requireNodeForDatabase(app, nodeId, { nodeId: service.node_id });
    const { id, position } = await moveService(requestContext(app, ctx, principal), service.id, nodeId);
    ctx.body = await queued(id, position);
  });

  for (const kind of ['start', 'restart'] as const) {
    route(router, releasesApi[kind], async (ctx) => {
      const principal = writerOf(ctx);
      const service = await visibleService(app.db, principal, ctx.params.serviceId!);
      const { id, position } = await rerunCurrentRelease(requestContext(app, ctx, principal), service.id, kind);
      ctx.body = await queued(id, position);
    });
  }
}
