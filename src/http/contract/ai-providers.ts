import type { Endpoint } from './endpoint.js';

export const aiProvidersApi: Record<string, Endpoint> = {};
