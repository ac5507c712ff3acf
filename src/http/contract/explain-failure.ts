import { z } from 'zod';
import { MAX_COMMANDS } from '../../integrations/ai/explanation.js';
import { AI_PROVIDERS } from '../../integrations/ai/providers.js';
import { text } from '../validation.js';
import { aiProviderId } from './ai-providers.js';
import { endpoint } from './endpoint.js';

export const failureExplanation = z
  .object({
    summary: z.string(),
    likelyCause: z.string(),
    suggestedFix: z.string(),
    commands: z.array(z.string()).meta({ description: `Commands that may help, at most ${MAX_COMMANDS}.` }),
  })
  .meta({ id: 'FailureExplanation' });

export const explainFailureApi = {
  explain: endpoint({
    method: 'post',
    path: '/api/deployments/:deploymentId/explain-failure',
    operationId: 'explainDeploymentFailure',
    tag: 'Deployments',
    summary: 'Explain why a failed deployment failed, with a connected AI provider (the explanation is kept and answered again)',
    description:
      'The provider is given the deployment’s failure reason, the service’s settings, the names (not values) of its variables and the last lines of its log, redacted. ' +
      'A deployment that did not fail answers 409, as does a provider that is not connected.',
    access: 'write',
    query: z.object({
      refresh: z
        .string()
        .optional()
        .catch(undefined)
        .meta({ description: '`true`: ask the provider again even when an explanation is kept; otherwise the kept one is answered.' }),
    }),
    body: z
      .object({
        providerId: z.string().min(1).max(64).meta({ description: `One of ${Object.keys(AI_PROVIDERS).join(', ')}; \`builtin\` needs no connection.` }),
        model: text(200).trim().optional().meta({ description: 'Empty or absent: the provider’s default model (`builtin` has none).' }),
      })
      .strict(),
    response: z.object({
      explanation: failureExplanation,
      providerId: aiProviderId.meta({ description: 'The provider that wrote it (a kept explanation may be another provider’s).' }),
      model: z.string().nullable(),
      stored: z.boolean().meta({ description: 'true: the explanation kept from an earlier request, not asked for again.' }),
    }),
    errors: [502, 504],
  }),
};
