import type { Endpoint } from './endpoint.js';

export const databaseApi: Record<string, Endpoint> = {};
