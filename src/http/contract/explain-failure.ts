import type { Endpoint } from './endpoint.js';

export const explainFailureApi: Record<string, Endpoint> = {};
