import type Router from '@koa/router';
import { z } from 'zod';
import { deleteEnvVar, setEnvVar } from '../../../commands/service/handlers.js';
import { checkCredentialChange } from '../../engines/credential-change.js';
import type { Slipway } from '../../slipway.js';
import type { ServiceScopeCache } from '../service-scope-cache.js';
import { isId, visibleServiceId, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { envKey, envValue, parseInput } from '../validation.js';

const upsertBody = z.object({ key: envKey, value: envValue });

export function envRoutes(router: Router, app: Slipway, scopes: ServiceScopeCache) {
  router.post('/api/services/:serviceId/env', async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    const { key, value } = parseInput(upsertBody, ctx.request.body);
    await checkCredentialChange(app, serviceId, key, value);
    const { position } = await setEnvVar(requestContext(app, ctx, principal), serviceId, key, value);
    await app.settle(position);
    ctx.body = { ok: true };
  });

  router.delete('/api/services/:serviceId/env/:envId', async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.envId!)) throw notFoundHttp('environment variable');
    const { position } = await deleteEnvVar(requestContext(app, ctx, principal), serviceId, ctx.params.envId!);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
