import { DEPLOYMENT_KINDS, DEPLOYMENT_TRIGGERS } from '../../../commands/deployment/events.js';
import { z } from 'zod';
import { id, nullableTimestamp, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const deployment = z
  .object({
    id,
    serviceId: id,
    commitSha: z.string().nullable(),
    commitMessage: z.string().nullable().meta({ description: 'The commit\'s message (its first 200 characters) once the source was fetched; null for an image or a run of a kept release.' }),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'aborted', 'canceled', 'rolled_back']).meta({ description: '`aborted`: stopped by a request or by Slipway; `canceled`: replaced by a newer deployment while still queued (it never started); `rolled_back`: went live, then the previous release was put back.' }),
    trigger: z.enum(DEPLOYMENT_TRIGGERS).meta({ description: '`auto`: started by Slipway itself (an automatic rollback); `webhook`: a Git host\'s push; `push`: a `git push` to Slipway.' }),
    kind: z.enum(DEPLOYMENT_KINDS).meta({
      description: '`deploy` builds or pulls; `rollback`, `config`, `start` and `restart` run a kept release without clone or build.',
    }),
    rollbackOf: z.string().nullable().meta({ description: 'The release a release-based deployment runs; null for `deploy`.' }),
    imageTag: z.string().nullable(),
    containerName: z.string().nullable(),
    buildMethod: z.enum(['dockerfile', 'packbuilder', 'image']).nullable(),
    reason: z.string().nullable().meta({ description: 'Why it failed or was aborted; null otherwise.' }),
    startedAt: nullableTimestamp,
    finishedAt: nullableTimestamp,
    createdAt: timestamp,
    actor: z.string().nullable().meta({ description: 'Who started it: `key:<id>`, `cli`, `system:…` (Slipway itself); null while the audit log has not caught up with it.' }),
    actorName: z.string().nullable().meta({ description: 'The name of the API key a `key:<id>` actor stands for (revoked or not); null for any other actor.' }),
  })
  .meta({ id: 'Deployment' });

export const logLine = z
  .object({
    id: z.number().int().meta({ description: 'Increases along the log: the last one seen is where a reader goes on.' }),
    deploymentId: id,
    line: z.string().meta({ description: 'Secret values are redacted.' }),
    stream: z.enum(['stdout', 'stderr', 'system']),
    createdAt: timestamp,
  })
  .meta({ id: 'DeploymentLogLine' });

export const runtimeLine = z
  .object({
    id: z.number().int(),
    line: z.string().meta({ description: 'Secret values are redacted.' }),
    stream: z.enum(['stdout', 'stderr']),
    createdAt: timestamp,
    task: z.string().nullable().optional().meta({ description: 'Cluster mode: the task that wrote the line (`<service>.<slot>`).' }),
    node: z.string().nullable().optional().meta({ description: 'Cluster mode: the node the task runs on.' }),
  })
  .meta({ id: 'RuntimeLogLine' });

const tag = 'Deployments';

export const deploymentsApi = {
  queue: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/deployments',
    operationId: 'queueDeployment',
    tag,
    summary: 'Deploy the service: build (or pull) and start a new release',
    description: 'Answers at once with the queued deployment; follow it with the stream below.',
    access: 'write',
    response: z.object({ deployment }),
  }),
  list: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/deployments',
    operationId: 'listDeployments',
    tag,
    summary: 'The service’s deployments, newest first',
    access: 'read',
    response: z.object({ deployments: z.array(deployment) }),
  }),
  get: endpoint({
    method: 'get',
    path: '/api/deployments/:deploymentId',
    operationId: 'getDeployment',
    tag,
    summary: 'One deployment, found by its id alone (a notification or a link names it)',
    access: 'read',
    response: z.object({ deployment }),
  }),
  abort: endpoint({
    method: 'post',
    path: '/api/deployments/:deploymentId/abort',
    operationId: 'abortDeployment',
    tag,
    summary: 'Abort a queued or running deployment (the build or container is stopped)',
    description: '409 once the deployment has ended.',
    access: 'write',
    response: z.object({ accepted: z.literal(true) }),
  }),
  logs: endpoint({
    method: 'get',
    path: '/api/deployments/:deploymentId/logs',
    operationId: 'getDeploymentLogs',
    tag,
    summary: 'The deployment’s build and start-up log so far',
    access: 'read',
    response: z.object({ logs: z.array(logLine) }),
  }),
  stream: endpoint({
    method: 'get',
    path: '/api/deployments/:deploymentId/stream',
    operationId: 'streamDeploymentLogs',
    tag,
    summary: 'The deployment’s log as Server-Sent Events, until it ends',
    description: 'First `snapshot` (the log so far), then a `log` event per new line; `ping` every 5 s. The stream closes once the deployment has ended.',
    access: 'read',
    stream: { snapshot: z.array(logLine), log: logLine, ping: z.object({ t: z.number().int().meta({ description: 'Milliseconds since the epoch.' }) }) },
  }),
  runtimeLogs: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/runtime-logs/stream',
    operationId: 'streamRuntimeLogs',
    tag,
    summary: 'The running container’s output as Server-Sent Events',
    description:
      'First `snapshot` (up to 200 recent lines) and `status` `{ok: true, closed: false}`, then a `log` event per new line. When the container stops or a redeploy replaces it: `status` `{ok: false, closed: true}`, and the stream closes. A service with no running container gets an empty snapshot and that status at once.',
    access: 'read',
    stream: { snapshot: z.array(runtimeLine), log: runtimeLine, status: z.object({ ok: z.boolean(), closed: z.boolean() }) },
  }),
};
