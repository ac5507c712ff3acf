import type Router from '@koa/router';
import { isLoopbackHost } from '../../network.js';
import { PUSHED_SOURCE } from '../../../commands/service/fields.js';
import type { Context } from 'koa';
import type { z } from 'zod';
import { DEFAULT_SKIP_KEYWORDS, type AutoDeploySettings } from '../../../commands/auto-deploy/events.js';
import { configureAutoDeploy, rotateAutoDeploySecret } from '../../../commands/auto-deploy/handlers.js';
import { invalid } from '../../../commands/shared/domain-error.js';
import { findAutoDeploySettings, listWebhookDeliveries } from '../../../projections/auto-deploy-queries.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, visibleService, writerOf } from '../auth.js';
import type { Principal } from '../principals.js';
import { autoDeployApi, type autoDeploySettings } from '../contract/auto-deploy.js';
import { route } from '../contract/endpoint.js';
import { notFoundHttp } from '../errors.js';
import { apiBaseUrl } from '../api-base-url.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

async function sourceService(app: Slipway, principal: Principal, serviceId: string): Promise<ServiceRow> {
  const row = await visibleService(app.db, principal, serviceId);
  if (row.kind !== 'source') throw invalid('serviceId', 'auto-deploy is for services built from a Git repository');
  if (row.repo_url === PUSHED_SOURCE) throw invalid('serviceId', 'this service has no upstream for a Git host to announce: it deploys what is pushed to it (git push)');
  return row;
}

export function autoDeployRoutes(router: Router, app: Slipway) {
  async function present(ctx: Context, row: ServiceRow, settings: AutoDeploySettings): Promise<z.infer<typeof autoDeploySettings>> {
    const base = await apiBaseUrl(app, ctx);
    // The address the request reached comes from its Host header: one no URL can hold warns of nothing.
    const hostname = URL.canParse(base) ? new URL(base).hostname : null;
    return {
      serviceId: row.id,
      ...settings,
      branch: settings.branch ?? row.branch,
      followsServiceBranch: settings.branch === null,
      webhookUrl: `${base}/api/hooks/${row.id}/${settings.provider}`,
      webhookWarning: hostname !== null && isLoopbackHost(hostname)
        ? `the webhook URL is on ${hostname}, which no Git host can reach: set the apiDomain setting to the API's public domain (PATCH /api/settings, or slipway settings set apiDomain=…)`
        : null,
    };
  }
  route(router, autoDeployApi.get, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const settings = await findAutoDeploySettings(app.db, row.id);
    ctx.body = { autoDeploy: settings ? await present(ctx, row, settings) : null };
  });

  route(router, autoDeployApi.put, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await sourceService(app, principal, ctx.params.serviceId!);
    const input = parseInput(autoDeployApi.put.body, ctx.request.body ?? {});
    const settings: AutoDeploySettings = {
      enabled: input.enabled,
      provider: input.provider,
      branch: input.branch ?? null,
      tagPattern: input.tagPattern ?? null,
      watchPaths: input.watchPaths ?? [],
      ignorePaths: input.ignorePaths ?? [],
      skipKeywords: input.skipKeywords ?? DEFAULT_SKIP_KEYWORDS,
    };
    const { position, secret } = await configureAutoDeploy(requestContext(app, ctx, principal), { serviceId: row.id, projectId: row.project_id }, settings);
    await app.settle(position);
    ctx.body = { autoDeploy: { ...(await present(ctx, row, settings)), ...(secret === null ? {} : { secret }) } };
  });

  route(router, autoDeployApi.rotateSecret, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await sourceService(app, principal, ctx.params.serviceId!);
    const { position, secret } = await rotateAutoDeploySecret(requestContext(app, ctx, principal), row.id);
    await app.settle(position);
    const settings = await findAutoDeploySettings(app.db, row.id);
    if (!settings) throw notFoundHttp('auto-deploy settings');
    ctx.body = { autoDeploy: { ...(await present(ctx, row, settings)), secret } };
  });

  route(router, autoDeployApi.deliveries, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    ctx.body = { deliveries: await listWebhookDeliveries(app.db, row.id) };
  });
}
