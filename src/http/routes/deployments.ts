import type Router from '@koa/router';
import { BUILD_REQUEST, isFinished, type DeploymentRequest } from '../../../commands/deployment/aggregate.js';
import { PUSHED_SOURCE } from '../../../commands/service/fields.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import { abortDeployment, queueDeployment } from '../../../commands/deployment/handlers.js';
import { findDeployment, listDeploymentLogs, listDeploymentsOf } from '../../../projections/deployment-queries.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, visibleDeployment, visibleService, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { HttpError, notFoundHttp } from '../errors.js';
import { presentDeploymentLog } from '../presenters.js';
import { presentDeployments, presentOneDeployment } from '../deployment-answers.js';
import { streamLog } from '../log-stream.js';
import { openSse } from '../sse.js';
import { route } from '../contract/endpoint.js';
import { deploymentsApi } from '../contract/deployments.js';
import { streamRuntimeLogs } from './runtime-logs.js';

const NO_COMMIT = '0'.repeat(40);

/** A service with no upstream deploys its branch as last pushed to Slipway; before any push there is nothing to build. */
async function lastPushed(app: Slipway, service: ServiceRow): Promise<DeploymentRequest> {
  const commitSha = await app.pushRepositories.branchTip(service.id, service.branch);
  if (commitSha === NO_COMMIT) {
    throw new HttpError(409, 'conflict', `nothing has been pushed to ${service.name}'s branch ${service.branch} yet: add its remote (slipway git-remote ${service.slug} --add) and git push slipway ${service.branch}`);
  }
  return { ...BUILD_REQUEST, source: 'push', commitSha };
}

export function deploymentRoutes(router: Router, app: Slipway) {
  route(router, deploymentsApi.queue, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const request = service.repo_url === PUSHED_SOURCE ? await lastPushed(app, service) : BUILD_REQUEST;
    const { id, position } = await queueDeployment(requestContext(app, ctx, principal), service.id, request);
    await app.settle(position);
    const row = await findDeployment(app.db, id);
    if (!row) throw notFoundHttp('deployment');
    ctx.body = { deployment: await presentOneDeployment(app.db, row, { queued: true }) };
  });

  route(router, deploymentsApi.list, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    ctx.body = { deployments: await presentDeployments(app.db, await listDeploymentsOf(app.db, service.id)) };
  });

  route(router, deploymentsApi.get, async (ctx) => {
    const { deployment } = await visibleDeployment(app.db, principalOf(ctx), ctx.params.deploymentId!);
    ctx.body = { deployment: await presentOneDeployment(app.db, deployment) };
  });

  route(router, deploymentsApi.abort, async (ctx) => {
    const principal = writerOf(ctx);
    const { deployment } = await visibleDeployment(app.db, principal, ctx.params.deploymentId!);
    const { position } = await abortDeployment(requestContext(app, ctx, principal), deployment.id);
    await app.settle(position);
    ctx.body = { accepted: true };
  });

  route(router, deploymentsApi.logs, async (ctx) => {
    const { deployment } = await visibleDeployment(app.db, principalOf(ctx), ctx.params.deploymentId!);
    ctx.body = { logs: (await listDeploymentLogs(app.db, deployment.id)).map(presentDeploymentLog) };
  });

  route(router, deploymentsApi.stream, async (ctx) => {
    const { deployment } = await visibleDeployment(app.db, principalOf(ctx), ctx.params.deploymentId!);
    const id = deployment.id;
    await streamLog(ctx, app.runner, id, {
      lines: (after) => listDeploymentLogs(app.db, id, after),
      present: presentDeploymentLog,
      ended: async () => {
        const status = (await findDeployment(app.db, id))?.status;
        return status === undefined || isFinished(status) ? {} : null;
      },
    });
  });

  route(router, deploymentsApi.runtimeLogs, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const sse = openSse(ctx);
    // Koa sends the headers once this handler returns; the stream itself runs on behind them.
    void streamRuntimeLogs(app, service, sse).catch(() => sse.close());
  });
}
