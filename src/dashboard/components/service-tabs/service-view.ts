import type { GetAnswer } from '../../api.js';

export type Overview = GetAnswer<'/api/services/{serviceId}/overview'>;
export type Deployment = Overview['deployments'][number];
export type Release = GetAnswer<'/api/services/{serviceId}/releases'>['releases'][number];

export const FINISHED = new Set(['succeeded', 'failed', 'aborted', 'canceled', 'rolled_back']);

/** A database service's engine (`postgres`, `redis`…); null for an app. */
export const engineOf = (service: Overview['service']): string | null =>
  service.repoUrl === 'database' ? (service.repoFullName ?? '').replace('database:', '') : null;

export const shortSha = (sha: string) => sha.slice(0, 7);

/** Built from Git: from an upstream or from what is pushed to Slipway. */
export const isFromGit = (service: Pick<Overview['service'], 'repoUrl'>) => service.repoUrl !== 'docker-image' && service.repoUrl !== 'database';

/** Slipway's own Git remote of a service built from Git, on the address this page was reached at (the API's). */
export const pushRemoteOf = (service: Pick<Overview['service'], 'id'>) => `${location.origin}/git/${service.id}.git`;
