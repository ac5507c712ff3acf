import { z } from 'zod';
import { createServiceBody, updateServiceBody } from '../service-bodies.js';
import { id, nullableTimestamp, okWithProxy, proxyResult } from './common.js';
import { deployment } from './deployments.js';
import { domain } from './domains.js';
import { endpoint } from './endpoint.js';
import { databaseSuggestion, service } from './projects.js';
import { effectiveResourcesAnswer } from '../resource-bodies.js';

const serviceAnswer = z.object({ service });

const variable = z
  .object({
    id,
    key: z.string(),
    hasValue: z.boolean(),
    masked: z.boolean().meta({ description: 'true for a project viewer: `value` and `resolvedValue` are then empty.' }),
    value: z.string().meta({ description: 'As set, references such as `${db.DATABASE_URL}` included.' }),
    resolvedValue: z.string().meta({ description: 'With references replaced by the values they point at.' }),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
  })
  .meta({ id: 'Variable' });

const tag = 'Services';

export const servicesApi = {
  create: endpoint({
    method: 'post',
    path: '/api/projects/:projectId/services',
    operationId: 'createService',
    tag,
    summary: 'Create a service: from a hosted repository, a Git URL, a container image, or a database engine',
    description:
      'The body’s fields pick the kind: `repoUrl: "database"` or `repoFullName: "database:<engine>"` for a database, `repoUrl: "docker-image"` with `dockerImage` for an image, `repoFullName: "<owner>/<repo>"` for a hosted repository, `repoUrl: "push"` for one with no upstream that deploys what is pushed to it (`git push` to `/git/<serviceId>.git`; *Deploy* redeploys the branch as last pushed), else `repoUrl` is a Git URL.',
    access: 'write',
    body: createServiceBody,
    response: serviceAnswer,
  }),
  get: endpoint({
    method: 'get',
    path: '/api/services/:serviceId',
    operationId: 'getService',
    tag,
    summary: 'A service, as in its overview',
    description: 'The same `service` as `GET /api/services/:serviceId/overview` answers, without its deployments, variables and domains.',
    access: 'read',
    response: serviceAnswer,
  }),
  overview: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/overview',
    operationId: 'getServiceOverview',
    tag,
    summary: 'A service with its recent deployments, variables and domains',
    access: 'read',
    response: z.object({
      service,
      deployments: z.array(deployment).meta({ description: 'The latest 20.' }),
      env: z.array(variable),
      domains: z.array(domain),
      publicIp: z.string().nullable(),
      resources: effectiveResourcesAnswer,
      usage: z
        .object({
          cpuPercent: z.number().meta({ description: 'Of one CPU over the last second: 150 is one and a half CPUs busy.' }),
          memoryBytes: z.number().int().meta({ description: 'In use, without the page cache the kernel can drop.' }),
          memoryLimitBytes: z.number().int().meta({ description: 'The memory limit, or the host’s memory when there is none.' }),
          pids: z.number().int(),
        })
        .nullable()
        .meta({
          id: 'ContainerUsage',
          description:
            'The current container’s use, from a sampler that follows Docker’s stats stream (a reading a second) while someone looks: the first overview of a container starts it and waits at most 0.1 s for a first reading, and sampling stops after a quiet period (`SLIPWAY_USAGE_QUIET`, 60 s) without an overview of it. null when nothing runs or no reading is known yet (not yet sampled: ask again a second later); `cpuPercent` is 0 in the first reading, until a second one. Cluster mode: a pinned database’s is read on its node; a Swarm service’s is the sum over its running tasks, each read on its node (the limit too is the sum; its tasks are listed every 5 s).',
        }),
    }),
  }),
  update: endpoint({
    method: 'patch',
    path: '/api/services/:serviceId',
    operationId: 'updateService',
    tag,
    summary: 'Change how the service is built or run',
    description:
      'Build settings apply at the next deployment. A change of `resources` (or the health check) re-creates the running release at once, without a build: the answer’s `deployment` (kind `config`), else null.',
    access: 'write',
    body: updateServiceBody,
    response: z.object({ service, deployment: deployment.nullable() }),
  }),
  transfer: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/transfer',
    operationId: 'transferService',
    tag,
    summary: 'Move the service to another project',
    access: 'write',
    body: z.object({ targetProjectId: z.string().min(1).max(100) }),
    response: z.object({
      service: z.object({ id, projectId: id, name: z.string(), slug: z.string() }),
      project: z.object({ id, name: z.string(), slug: z.string(), serviceCount: z.number().int(), services: z.array(service) }),
      proxy: proxyResult,
    }),
  }),
  delete: endpoint({
    method: 'delete',
    path: '/api/services/:serviceId',
    operationId: 'deleteService',
    tag,
    summary: 'Delete the service, its containers, volumes and secrets',
    access: 'write',
    response: okWithProxy,
  }),
  stop: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/stop',
    operationId: 'stopService',
    tag,
    summary: 'Stop the running release: its container is stopped and kept, its routes answer 503 until it is started or deployed',
    description: '409 when the service is already stopped or has never run. A database service’s port refuses connections while stopped.',
    access: 'write',
    response: z.object({ service, proxy: proxyResult }),
  }),
  suggestionKeys: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/suggestion-keys',
    operationId: 'listVariableSuggestions',
    tag,
    summary: 'Variables of the project’s other services this service can reference',
    access: 'read',
    response: z.object({
      suggestions: z.array(z.object({ key: z.string(), label: z.string() })),
      databaseVariables: z.array(databaseSuggestion),
    }),
  }),
};
