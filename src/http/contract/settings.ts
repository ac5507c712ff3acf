import type { Endpoint } from './endpoint.js';

export const settingsApi: Record<string, Endpoint> = {};
