import { z } from 'zod';
import { resourceSettings } from './resources.js';
import { storedHealthCheck } from './health-check.js';
import { nodeLabels } from '../cluster/node-labels.js';

import { ENGINES, type Engine } from '../../src/shared/database-engine.js';

export { ENGINES, type Engine };

export const BUILD_METHODS = ['auto', 'dockerfile', 'packbuilder'] as const;
export const RUNTIME_MODES = ['web', 'worker', 'static'] as const;

/** Settings a service keeps after creation; PATCH may change any of them. */
export const serviceSettings = z.object({
  branch: z.string(),
  rootDir: z.string().nullable(),
  gitToken: z.string().nullable(),
  installCommand: z.string().nullable(),
  buildCommand: z.string().nullable(),
  startCommand: z.string().nullable(),
  buildMethod: z.enum(BUILD_METHODS),
  dockerfilePath: z.string().nullable(),
  runtimeMode: z.enum(RUNTIME_MODES),
  internalPort: z.number().int(),
  // Absent in services created before releases: the defaults below apply (see releasePolicyOf).
  releasesKept: z.number().int().min(1).max(50).optional(),
  watchSeconds: z.number().int().min(0).max(3600).optional(),
  autoRollback: z.boolean().optional(),
  /**
   * Run once before a new image takes traffic (Heroku's release phase), in a container of it: a string with
   * `sh -c`, an array as argv. Absent in services created before it existed: none.
   */
  releaseCommand: z.union([z.string(), z.array(z.string())]).nullable().optional(),
  /** A rollback runs the release command again (off by default: an old migration must not run twice). */
  releaseCommandOnRollback: z.boolean().optional(),
  /** Absent in events from before limits existed: the installation's defaults apply. */
  resources: resourceSettings.optional(),
  /** The image an image service runs (null for other kinds); a PATCH moves it to another image. */
  dockerImage: z.string().nullable(),
  /** Absent in services created before checks existed: the kind's default. */
  healthCheck: storedHealthCheck.optional(),
  /** Cluster mode: how many tasks run (absent: 1) and on which nodes (Swarm node labels that must match). */
  replicas: z.number().int().min(1).max(100).optional(),
  nodeLabels: nodeLabels.optional(),
});
export type ServiceSettings = z.infer<typeof serviceSettings>;

/** The `repoUrl` of a service with no upstream: it builds what is pushed to Slipway's own remote (`git push`). */
export const PUSHED_SOURCE = 'push';

export const serviceIdentity = z.object({
  projectId: z.string(),
  name: z.string(),
  slug: z.string(),
  kind: z.enum(['source', 'image', 'database']),
  repoFullName: z.string().nullable(),
  repoUrl: z.string(),
  hostPort: z.number().int(),
  databaseEngine: z.enum(ENGINES).nullable(),
  databasePublicEnabled: z.boolean(),
  databasePublicHostname: z.string().nullable(),
  postgresLogicalReplicationEnabled: z.boolean(),
  /** Cluster mode: the Swarm node a database service's container and volume are on; absent or null: the manager's engine, where Slipway runs. */
  nodeId: z.string().nullable().optional(),
});

/** How a service keeps and watches its releases, with the defaults for a service that never said. */
export function releasePolicyOf(settings: Pick<ServiceSettings, 'releasesKept' | 'watchSeconds' | 'autoRollback'>) {
  return { releasesKept: settings.releasesKept ?? 10, watchSeconds: settings.watchSeconds ?? 60, autoRollback: settings.autoRollback ?? true };
}
