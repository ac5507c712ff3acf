import { TEST_IMAGES } from './docker.js';
import type { TestServer } from './test-server.js';

/** What the helpers need of a Slipway, in-process (TestServer) or spawned (SlipwayProcess). */
export interface ApiClient {
  call(method: string, path: string, options?: { body?: unknown }): Promise<{ status: number; body: any }>;
}

export async function createProject(s: TestServer, name: string, key?: string) {
  const r = await s.call('POST', '/api/projects', { body: { name, description: `${name} description` }, ...(key ? { key } : {}) });
  if (r.status !== 200) throw new Error(`create project: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.project as { id: string; slug: string; name: string; lastUpdatedAt: string };
}

export async function createService(s: ApiClient, projectId: string, body: Record<string, unknown>) {
  const r = await s.call('POST', `/api/projects/${projectId}/services`, { body });
  if (r.status !== 200) throw new Error(`create service: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.service as Record<string, any>;
}

export async function createKey(s: ApiClient, access: 'read' | 'write', projectIds: string[] | null) {
  const r = await s.call('POST', '/api/keys', { body: { name: `${access}-key`, access, projectIds } });
  if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { key: { id: string }; secret: string };
}

export async function addDomain(s: ApiClient, serviceId: string, hostname: string) {
  const r = await s.call('POST', `/api/services/${serviceId}/domains`, { body: { hostname } });
  if (r.status !== 200) throw new Error(`add domain: ${r.status} ${JSON.stringify(r.body)}`);
}

/** A container-image service of the local test image, which answers HTTP on 8000. */
export const testWebService = (name: string) => ({
  name,
  repoUrl: 'docker-image',
  dockerImage: TEST_IMAGES.web,
  branch: 'main',
  runtimeMode: 'web',
  internalPort: 8000,
  env: [],
});

/** The body that creates a database service of an engine (loopback only unless `extra` says otherwise). */
export const databaseService = (name: string, engine: string, extra: Record<string, unknown> = {}) => ({
  name,
  repoFullName: `database:${engine}`,
  repoUrl: 'database',
  branch: 'main',
  internalPort: 1,
  databasePublicEnabled: false,
  env: [],
  ...extra,
});
