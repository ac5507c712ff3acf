import type { Endpoint } from './endpoint.js';

export const healthApi: Record<string, Endpoint> = {};
