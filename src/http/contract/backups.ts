import type { Endpoint } from './endpoint.js';

export const backupsApi: Record<string, Endpoint> = {};
