import type { Endpoint } from './endpoint.js';

export const dnsProvidersApi: Record<string, Endpoint> = {};
