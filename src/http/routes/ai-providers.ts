import type Router from '@koa/router';
import type { z } from 'zod';
import { connectAiProvider, disconnectAiProvider } from '../../../commands/settings/handlers.js';
import type { AiProviderRow } from '../../../projections/settings-queries.js';
import { AiProviderError } from '../../integrations/ai/explanation.js';
import { AI_PROVIDERS, verifyAiProvider, type AiProviderId } from '../../integrations/ai/providers.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import type { Slipway } from '../../slipway.js';
import { requireInstallation, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { aiProvidersApi, type aiProvider } from '../contract/ai-providers.js';
import { route } from '../contract/endpoint.js';

export function aiProviderIdOf(raw: string): AiProviderId {
  if (!Object.hasOwn(AI_PROVIDERS, raw)) throw new HttpError(404, 'not_found', `AI provider ${raw} not found: use one of ${Object.keys(AI_PROVIDERS).join(', ')}`);
  return raw as AiProviderId;
}

/** `builtin` needs no connection (no key, no network), so it is always listed as connected. */
export function presentAiProviders(rows: readonly AiProviderRow[]): z.infer<typeof aiProvider>[] {
  return (Object.keys(AI_PROVIDERS) as AiProviderId[]).map((id) => {
    const row = rows.find((r) => r.provider_id === id);
    const base = { id, name: AI_PROVIDERS[id].name };
    if (!row) return { ...base, connected: id === 'builtin' };
    return { ...base, connected: true, baseUrl: row.base_url, hasApiKey: row.has_api_key, defaultModel: row.default_model, models: row.models, connectedAt: new Date(row.connected_at).toISOString() };
  });
}

function refuseBuiltin(id: AiProviderId) {
  if (id === 'builtin') throw new HttpError(400, 'validation_failed', 'the builtin provider is always available: it has nothing to connect or disconnect');
}

export function aiProviderRoutes(router: Router, app: Slipway) {
  route(router, aiProvidersApi.connect, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const id = aiProviderIdOf(ctx.params.providerId!);
    refuseBuiltin(id);
    const body = parseInput(aiProvidersApi.connect.body, ctx.request.body ?? {});
    const connection = { baseUrl: body.baseUrl ?? null, apiKey: body.apiKey ?? null, defaultModel: body.defaultModel ?? null };
    // Saved only once the provider listed its models with these settings.
    let models: string[];
    try {
      models = await verifyAiProvider(id, connection, { timeoutMs: app.config.integrations.aiTimeoutMs, outbound: app.outbound });
    } catch (error) {
      if (error instanceof AiProviderError) throw new HttpError(400, 'ai_provider_failed', `${AI_PROVIDERS[id].name} refused the connection: ${error.message}`);
      // The provider's address: the one given, or its public default.
      if (error instanceof ForbiddenDestinationError) throw error.at('baseUrl');
      throw error;
    }
    const { position } = await connectAiProvider(requestContext(app, ctx, principal), { providerId: id, ...connection, models: models.slice(0, 200) });
    await app.settle(position);
    ctx.body = { ok: true, provider: { id, name: AI_PROVIDERS[id].name, connected: true, baseUrl: connection.baseUrl, hasApiKey: connection.apiKey !== null, defaultModel: connection.defaultModel, models } };
  });

  route(router, aiProvidersApi.disconnect, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const id = aiProviderIdOf(ctx.params.providerId!);
    refuseBuiltin(id);
    const { position } = await disconnectAiProvider(requestContext(app, ctx, principal), id);
    await app.settle(position);
    ctx.body = { ok: true, provider: { id, name: AI_PROVIDERS[id].name, connected: false } };
  });
}
