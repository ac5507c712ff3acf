import type { Endpoint } from './endpoint.js';

export const deploymentsApi: Record<string, Endpoint> = {};
