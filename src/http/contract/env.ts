import { z } from 'zod';
import { envKey, envValue } from '../validation.js';
import { okBody } from './common.js';
import { endpoint } from './endpoint.js';

const tag = 'Variables';

export const envApi = {
  set: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/env',
    operationId: 'setVariable',
    tag,
    summary: 'Set an environment variable (created, or its value replaced)',
    description: 'The value may reference another service’s variable as `${slug.KEY}`; it is stored encrypted.',
    access: 'write',
    body: z.object({ key: envKey, value: envValue }),
    response: okBody,
  }),
  unset: endpoint({
    method: 'delete',
    path: '/api/services/:serviceId/env/:envId',
    operationId: 'unsetVariable',
    tag,
    summary: 'Remove an environment variable',
    access: 'write',
    response: okBody,
  }),
};
