import { z } from 'zod';
import { name } from '../validation.js';
import { id, nullableTimestamp, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const apiKey = z
  .object({
    id,
    name: z.string(),
    access: z.enum(['read', 'write']),
    projectIds: z.array(id).nullable().meta({ description: 'The projects the key can see; null: every project.' }),
    prefix: z.string().meta({ description: 'The start of the key, to recognise it; the key itself is never shown again.' }),
    ownerUserId: id.nullable().meta({ description: 'The person the key belongs to (it never does more than they can, at each request); null: an installation key.' }),
    createdAt: timestamp,
    revokedAt: nullableTimestamp,
  })
  .meta({ id: 'ApiKey' });

export const apiKeysApi = {
  list: endpoint({
    method: 'get',
    path: '/api/keys',
    operationId: 'listApiKeys',
    tag: 'API keys',
    summary: 'Every API key, revoked ones included (never the keys themselves)',
    access: 'write',
    allProjects: true,
    response: z.object({ keys: z.array(apiKey) }),
  }),
  create: endpoint({
    method: 'post',
    path: '/api/keys',
    operationId: 'createApiKey',
    tag: 'API keys',
    summary: 'Create an API key; the answer holds the key, shown this once',
    access: 'write',
    allProjects: true,
    body: z.object({
      name: name(100),
      access: z.enum(['read', 'write']),
      projectIds: z
        .array(z.string().max(100))
        .min(1)
        .max(1000)
        .nullable()
        .optional()
        .meta({ description: 'The projects the key can see (ids); null or absent: every project.' }),
    }),
    response: z.object({
      key: apiKey,
      secret: z.string().meta({ description: 'The key to send as `Authorization: Bearer …`. Only its hash is kept: it cannot be shown again.' }),
    }),
  }),
  revoke: endpoint({
    method: 'delete',
    path: '/api/keys/:keyId',
    operationId: 'revokeApiKey',
    tag: 'API keys',
    summary: 'Revoke an API key: it is refused from then on (revoking it again changes nothing)',
    access: 'write',
    allProjects: true,
    response: okBody,
  }),
};
