import type Router from '@koa/router';
import { moveService, rerunCurrentRelease, rollbackService } from '../../../commands/release/handlers.js';
import { requireNodeForDatabase } from '../node-choice.js';
import { findDeployment } from '../../../projections/deployment-queries.js';
import { listReleasesOf } from '../../../projections/release-queries.js';
import type { Slipway } from '../../slipway.js';
import { actorOf, principalOf, visibleService, writerOf } from '../auth.js';
import { changesByRelease } from '../release-changes.js';
import { deploymentActors } from '../../../projections/deployment-actor-queries.js';
import { route } from '../contract/endpoint.js';
import { releasesApi } from '../contract/releases.js';
import { notFoundHttp } from '../errors.js';
import { presentRelease } from '../presenters.js';
import { presentOneDeployment } from '../deployment-answers.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

export function releaseRoutes(router: Router, app: Slipway) {
  /** Answers with the queued deployment, once the read models have it. */
  const queued = async ({ id, position }: { id: string; position: string | null }) => {
    await app.settle(position);
    const row = await findDeployment(app.db, id);
    if (!row) throw notFoundHttp('deployment');
    return { deployment: await presentOneDeployment(app.db, row, { queued: true }) };
  };

  route(router, releasesApi.list, async (ctx) => {
    const principal = principalOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const rows = await listReleasesOf(app.db, service.id);
    const [actors, changes] = await Promise.all([
      deploymentActors(app.db, rows.map((r) => r.deployment_id)),
      changesByRelease(app.commandContext(actorOf(principal)), app.keyring, service.id),
    ]);
    ctx.body = { releases: rows.map((r) => presentRelease(r, actors.get(r.deployment_id), changes.get(r.id) ?? null)) };
  });

  route(router, releasesApi.rollback, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { releaseId, config } = parseInput(releasesApi.rollback.body, ctx.request.body ?? {});
    ctx.body = await queued(await rollbackService(requestContext(app, ctx, principal), service.id, releaseId, config));
  });

  route(router, releasesApi.move, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { nodeId } = parseInput(releasesApi.move.body, ctx.request.body ?? {});
    await requireNodeForDatabase(app, nodeId, { nodeId: service.node_id });
    ctx.body = await queued(await moveService(requestContext(app, ctx, principal), service.id, nodeId));
  });

  for (const kind of ['start', 'restart'] as const) {
    route(router, releasesApi[kind], async (ctx) => {
      const principal = writerOf(ctx);
      const service = await visibleService(app.db, principal, ctx.params.serviceId!);
      ctx.body = await queued(await rerunCurrentRelease(requestContext(app, ctx, principal), service.id, kind));
    });
  }
}
