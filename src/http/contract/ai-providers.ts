import { z } from 'zod';
import { AI_PROVIDERS, aiConnectBody, type AiProviderId } from '../../integrations/ai/providers.js';
import { timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const aiProviderId = z.enum(Object.keys(AI_PROVIDERS) as [AiProviderId, ...AiProviderId[]]);

const identity = { id: aiProviderId, name: z.string() };

/** What is shown of a connection: never the API key, only whether there is one. */
const connection = {
  baseUrl: z.string().nullable(),
  hasApiKey: z.boolean(),
  defaultModel: z.string().nullable(),
  models: z.array(z.string()).meta({ description: 'The models the provider listed when it was connected.' }),
};

/** One provider of GET /api/settings: `builtin` needs no connection and is always connected, with nothing else to show. */
export const aiProvider = z
  .union([
    z.object({ ...identity, connected: z.boolean() }),
    z.object({ ...identity, connected: z.literal(true), ...connection, connectedAt: timestamp }),
  ])
  .meta({ id: 'AiProvider' });

const path = '/api/settings/ai-providers/:providerId';
const description = `\`providerId\` is one of ${Object.keys(AI_PROVIDERS).join(', ')}; \`builtin\` has nothing to connect or disconnect (400).`;

export const aiProvidersApi = {
  connect: endpoint({
    method: 'put',
    path,
    operationId: 'connectAiProvider',
    tag: 'Settings',
    summary: 'Connect an AI provider (or change its connection); saved only once the provider listed its models with it',
    description,
    access: 'write',
    allProjects: true,
    body: aiConnectBody,
    response: z.object({
      ok: z.literal(true),
      provider: z.object({ ...identity, connected: z.literal(true), ...connection }),
    }),
  }),
  disconnect: endpoint({
    method: 'delete',
    path,
    operationId: 'disconnectAiProvider',
    tag: 'Settings',
    summary: 'Disconnect an AI provider',
    description,
    access: 'write',
    allProjects: true,
    response: z.object({ ok: z.literal(true), provider: z.object({ ...identity, connected: z.literal(false) }) }),
  }),
};
