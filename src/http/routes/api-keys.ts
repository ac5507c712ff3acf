import type Router from '@koa/router';
import { createApiKey, revokeApiKey } from '../../../commands/api-key/handlers.js';
import { findApiKey, listApiKeys } from '../../../projections/api-key-queries.js';
import type { Slipway } from '../../slipway.js';
import { isId, principalOf, requireInstallation, requireWrite } from '../auth.js';
import type { Principal } from '../principals.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { presentApiKey } from '../presenters.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { apiKeysApi } from '../contract/api-keys.js';

function requireKeyAdmin(principal: Principal) {
  requireWrite(principal);
  requireInstallation(principal, 'managing API keys');
}

export function apiKeyRoutes(router: Router, app: Slipway) {
  route(router, apiKeysApi.list, async (ctx) => {
    requireKeyAdmin(principalOf(ctx));
    ctx.body = { keys: (await listApiKeys(app.db)).map(presentApiKey) };
  });

  route(router, apiKeysApi.create, async (ctx) => {
    const principal = principalOf(ctx);
    requireKeyAdmin(principal);
    const body = parseInput(apiKeysApi.create.body, ctx.request.body);
    const projectIds = body.projectIds ? [...new Set(body.projectIds)] : null;
    const { id, secret, position } = await createApiKey(requestContext(app, ctx, principal), { ...body, projectIds, ownerUserId: null });
    await app.settle(position);
    ctx.body = { key: presentApiKey((await findApiKey(app.db, id))!), secret };
  });

  route(router, apiKeysApi.revoke, async (ctx) => {
    const principal = principalOf(ctx);
    requireKeyAdmin(principal);
    if (!isId(ctx.params.keyId!)) throw notFoundHttp('api key');
    const { position } = await revokeApiKey(requestContext(app, ctx, principal), ctx.params.keyId!);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
