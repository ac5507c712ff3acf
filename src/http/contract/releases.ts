import { z } from 'zod';
import { swarmNodeId } from '../../../commands/cluster/events.js';
import { RELEASE_CONFIGS } from '../../../commands/deployment/events.js';
import { id, timestamp } from './common.js';
import { deployment } from './deployments.js';
import { endpoint } from './endpoint.js';

const names = z.array(z.string());
const releaseChanges = z
  .object({
    image: z.boolean().meta({ description: 'Whether it runs another image than the release before.' }),
    variables: z
      .object({ added: names, removed: names, changed: names })
      .nullable()
      .meta({ description: 'Variables by name only, never a value; null when either release’s variables can no longer be read.' }),
    settings: names.meta({ description: 'The settings that differ: `startCommand`, `internalPort`, `runtimeMode`, `healthCheck`, `resources`.' }),
  })
  .meta({ id: 'ReleaseChanges' });

export const release = z
  .object({
    id,
    version: z.number().int().meta({ description: 'Counts up per service: 1, 2, 3…' }),
    deploymentId: id,
    imageId: z.string().meta({ description: 'The image by its id (`sha256:…`), never a tag that can move.' }),
    commitSha: z.string().nullable(),
    commitMessage: z.string().nullable().meta({ description: 'The first line of the commit’s message, for Git sources.' }),
    createdAt: timestamp,
    current: z.boolean().meta({ description: 'Whether the service runs this release now.' }),
    available: z.boolean().meta({ description: 'False once its image was pruned (older than the service’s `releasesKept`): it cannot be rolled back to.' }),
    actor: z.string().nullable().meta({ description: 'Who started the deployment that made it: `key:<id>`, `cli`, `system:…`; null while the audit log has not caught up.' }),
    actorName: z.string().nullable().meta({ description: 'The name of the API key a `key:<id>` actor stands for (revoked or not); null for any other actor.' }),
    changes: releaseChanges.nullable().meta({ description: 'What differs from the release before it; null for the first.' }),
  })
  .meta({ id: 'Release' });

const tag = 'Releases';
const deploymentAnswer = z.object({ deployment });

export const releasesApi = {
  list: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/releases',
    operationId: 'listReleases',
    tag,
    summary: 'The service’s releases (every deployment that went live), newest first',
    access: 'read',
    response: z.object({ releases: z.array(release) }),
  }),
  rollback: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/rollback',
    operationId: 'rollbackService',
    tag,
    summary: 'Run an earlier release again, without clone or build',
    description:
      'Default: the release before the current one, with that release’s own configuration (`config: "release"`); `config: "current"` runs the old image with today’s variables and settings. The kept image must pass its health check before it takes the route, with the same zero-downtime switch as a deploy. 404 for an unknown release; 409 when its image was pruned or there is nothing to roll back to.',
    access: 'write',
    body: z.object({ releaseId: z.string().min(1).max(100).optional(), config: z.enum(RELEASE_CONFIGS).default('release') }).strict(),
    response: deploymentAnswer,
    errors: [409],
  }),
  start: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/start',
    operationId: 'startService',
    tag,
    summary: 'Start a stopped service: its current release runs again, through its health check',
    description: 'A deployment of kind `start`. 409 when the service has no release yet, or is not stopped.',
    access: 'write',
    response: deploymentAnswer,
    errors: [409],
  }),
  restart: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/restart',
    operationId: 'restartService',
    tag,
    summary: 'Restart the service’s current release (web services without downtime: the new container first, then the switch)',
    description: 'A deployment of kind `restart`. 409 when the service has no release yet.',
    access: 'write',
    response: deploymentAnswer,
    errors: [409],
  }),
  move: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/move',
    operationId: 'moveService',
    tag,
    summary: 'Cluster mode: move a database service to another node, its data with it',
    description:
      'A deployment of kind `move`: the running database is dumped with its engine’s own tool, stopped, started from the same release on the node with an empty volume, and the dump restored into it; the service then runs there (`nodeId`), and its old container and volume are removed. The database is down from the stop until the restore ends. If any step fails, the new container and volume go and the old container starts again on its data. 409 when the installation is not a cluster, the service is not a running database, or the node is not ready and active; 400 for a node the cluster does not have.',
    access: 'write',
    body: z.strictObject({ nodeId: swarmNodeId }),
    response: deploymentAnswer,
    errors: [400, 409],
  }),
};
