import type { Endpoint } from './endpoint.js';

export const eventsApi: Record<string, Endpoint> = {};
