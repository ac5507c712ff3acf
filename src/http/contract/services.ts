import type { Endpoint } from './endpoint.js';

export const servicesApi: Record<string, Endpoint> = {};
