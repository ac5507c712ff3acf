import type Router from '@koa/router';
import { deleteEnvVar, setEnvVar } from '../../../commands/service/handlers.js';
import { checkCredentialChange } from '../../engines/credential-change.js';
import type { Slipway } from '../../slipway.js';
import type { ServiceScopeCache } from '../service-scope-cache.js';
import { isId, visibleServiceId, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { route } from '../contract/endpoint.js';
import { envApi } from '../contract/env.js';
import { parseInput } from '../validation.js';

export function envRoutes(router: Router, app: Slipway, scopes: ServiceScopeCache) {
  route(router, envApi.set, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    const { key, value } = parseInput(envApi.set.body, ctx.request.body);
    await checkCredentialChange(app, serviceId, key, value);
    const { position } = await setEnvVar(requestContext(app, ctx, principal), serviceId, key, value);
    await app.settle(position);
    ctx.body = { ok: true };
  });

  route(router, envApi.unset, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.envId!)) throw notFoundHttp('environment variable');
    const { position } = await deleteEnvVar(requestContext(app, ctx, principal), serviceId, ctx.params.envId!);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
