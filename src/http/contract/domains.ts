import type { Endpoint } from './endpoint.js';

export const domainsApi: Record<string, Endpoint> = {};
