import type { GetAnswer } from '../../api.js';

export type Overview = GetAnswer<'/api/services/{serviceId}/overview'>;
export type Deployment = Overview['deployments'][number];
export type Release = GetAnswer<'/api/services/{serviceId}/releases'>['releases'][number];

export const FINISHED = new Set(['succeeded', 'failed', 'aborted', 'canceled', 'rolled_back']);

/** A database service's engine (`postgres`, `redis`…); null for an app. */
export const engineOf = (service: Overview['service']): string | null =>
  service.repoUrl === 'database' ? (service.repoFullName ?? '').replace('database:', '') : null;

export const shortSha = (sha: string) => sha.slice(0, 7);
