import type Router from '@koa/router';
import { z } from 'zod';
import { addDomain, changeDomain, removeDomain } from '../../../commands/service/handlers.js';
import type { Slipway } from '../../slipway.js';
import { isId, visibleServiceId, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { hostname, parseInput } from '../validation.js';

const hostnameBody = z.object({ hostname });

export function domainRoutes(router: Router, app: Slipway) {
  router.post('/api/services/:serviceId/domains', async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(app.db, principal, ctx.params.serviceId!);
    const body = parseInput(hostnameBody, ctx.request.body);
    const { position } = await addDomain(requestContext(app, ctx, principal), serviceId, body.hostname);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  router.patch('/api/services/:serviceId/domains/:domainId', async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(app.db, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.domainId!)) throw notFoundHttp('domain');
    const body = parseInput(hostnameBody, ctx.request.body);
    const { position } = await changeDomain(requestContext(app, ctx, principal), serviceId, ctx.params.domainId!, body.hostname);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  router.delete('/api/services/:serviceId/domains/:domainId', async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(app.db, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.domainId!)) throw notFoundHttp('domain');
    const { position } = await removeDomain(requestContext(app, ctx, principal), serviceId, ctx.params.domainId!);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });
}
