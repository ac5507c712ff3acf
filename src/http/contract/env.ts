import type { Endpoint } from './endpoint.js';

export const envApi: Record<string, Endpoint> = {};
