import type { Endpoint } from './endpoint.js';

export const importsApi: Record<string, Endpoint> = {};
