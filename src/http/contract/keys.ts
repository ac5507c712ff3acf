import type { Endpoint } from './endpoint.js';

export const keysApi: Record<string, Endpoint> = {};
