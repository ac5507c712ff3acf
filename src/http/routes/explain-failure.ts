import type Router from '@koa/router';
import { recordExplanation, storedExplanation } from '../../../commands/deployment/handlers.js';
import { aiProviderConnection } from '../../../commands/settings/handlers.js';
import { AiProviderError } from '../../integrations/ai/explanation.js';
import { AI_PROVIDERS, openExplainer, type AiProviderId } from '../../integrations/ai/providers.js';
import type { Slipway } from '../../slipway.js';
import { visibleDeployment, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { failureContextOf } from '../failure-context.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { explainFailureApi } from '../contract/explain-failure.js';

const ERROR_STATUS: Record<AiProviderError['kind'], [number, string]> = {
  unreachable: [502, 'ai_provider_unreachable'],
  refused: [502, 'ai_provider_failed'],
  malformed: [502, 'ai_answer_invalid'],
  timeout: [504, 'ai_provider_timeout'],
};

export function explainFailureRoutes(router: Router, app: Slipway) {
  route(router, explainFailureApi.explain, async (ctx) => {
    const principal = writerOf(ctx);
    const { deployment, service } = await visibleDeployment(app.db, principal, ctx.params.deploymentId!);
    const body = parseInput(explainFailureApi.explain.body, ctx.request.body ?? {});
    if (!Object.hasOwn(AI_PROVIDERS, body.providerId)) {
      throw new HttpError(400, 'validation_failed', `providerId must be one of ${Object.keys(AI_PROVIDERS).join(', ')}`, [{ path: 'providerId', message: 'unknown AI provider' }]);
    }
    const providerId = body.providerId as AiProviderId;
    const cmd = requestContext(app, ctx, principal);
    const connection = providerId === 'builtin' ? { baseUrl: null, apiKey: null, defaultModel: null } : await aiProviderConnection(cmd, providerId);
    if (!connection) throw new HttpError(409, 'ai_provider_not_connected', `${AI_PROVIDERS[providerId].name} is not connected: connect it with PUT /api/settings/ai-providers/${providerId}`);
    const stored = await storedExplanation(cmd, deployment.id);
    const { refresh } = parseInput(explainFailureApi.explain.query, ctx.query);
    if (stored && refresh !== 'true') {
      ctx.body = { explanation: stored.explanation, providerId: stored.providerId, model: stored.model, stored: true };
      return;
    }
    const model = body.model || connection.defaultModel || null;
    const context = await failureContextOf(app, deployment, service);
    let explanation;
    try {
      explanation = await openExplainer(providerId, connection, { timeoutMs: app.config.integrations.aiTimeoutMs, outbound: app.outbound }).explain(context, model);
    } catch (error) {
      if (!(error instanceof AiProviderError)) throw error;
      const [status, code] = ERROR_STATUS[error.kind];
      throw new HttpError(status, code, `${AI_PROVIDERS[providerId].name}: ${error.message}`);
    }
    const usedModel = providerId === 'builtin' ? null : model;
    const { position } = await recordExplanation(cmd, deployment.id, { providerId, model: usedModel, explanation });
    await app.settle(position);
    ctx.body = { explanation, providerId, model: usedModel, stored: false };
  });
}
