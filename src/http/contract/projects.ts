import { z } from 'zod';
import { BUILD_METHODS, RUNTIME_MODES } from '../../../commands/service/fields.js';
import { healthCheck } from '../../../commands/service/health-check.js';
import { name, text } from '../validation.js';
import { endpoint } from './endpoint.js';
import { resourcesAnswer } from '../resource-bodies.js';
import { id, nullableTimestamp, okWithProxy, timestamp } from './common.js';

export const SERVICE_STATUSES = ['idle', 'active', 'stopped', 'failed', 'crashed'] as const;

export const service = z
  .object({
    id,
    projectId: id,
    name: z.string(),
    slug: z.string(),
    repoFullName: z.string().nullable(),
    repoUrl: z.string(),
    dockerImage: z.string().nullable(),
    branch: z.string(),
    rootDir: z.string().nullable(),
    hasGitToken: z.boolean(),
    installCommand: z.string().nullable(),
    buildCommand: z.string().nullable(),
    startCommand: z.string().nullable(),
    staticOutput: z.null(),
    buildMethod: z.enum(BUILD_METHODS),
    dockerfilePath: z.string().nullable(),
    detectedBuildMethod: z.string().nullable(),
    runtimeMode: z.enum(RUNTIME_MODES),
    internalPort: z.number().int(),
    hostPort: z.number().int(),
    databasePublicEnabled: z.boolean(),
    databasePublicHostname: z.string().nullable(),
    postgresLogicalReplicationEnabled: z.boolean(),
    status: z.enum(SERVICE_STATUSES).meta({
      description:
        '`idle`: nothing runs (never deployed, or its container is gone); `active`: its current release runs; `stopped`: stopped on request (`POST …/stop`), its routes answer 503 until it is started or deployed; `failed`: its last deployment failed and no release runs; `crashed`: the container of its current release died.',
    }),
    releasesKept: z.number().int().meta({ description: 'Releases whose images are kept for rollback (1–50, default 10).' }),
    watchSeconds: z.number().int().meta({ description: 'Seconds a new release is watched after it goes live (0: not watched; default 60).' }),
    autoRollback: z.boolean().meta({ description: 'Whether a release that misbehaves in its watch window is rolled back on its own (default true).' }),
    releaseCommand: z
      .union([z.string(), z.array(z.string())])
      .nullable()
      .meta({ description: 'Run once in a container of each new image, with its new variables, before it takes traffic (a string with `sh -c`, an array as argv); null: none.' }),
    releaseCommandOnRollback: z.boolean().meta({ description: 'Whether a rollback runs the release command too (default false).' }),
    replicas: z.number().int().meta({ description: 'Cluster mode: how many tasks run (default 1; a single server runs one container).' }),
    nodeLabels: z.record(z.string(), z.string()).meta({ description: 'Cluster mode: only nodes with all these labels run its tasks.' }),
    nodeId: z.string().nullable().meta({ description: 'Cluster mode: the node a database service’s container and volume are on; null: the manager’s engine, where Slipway runs (and every other kind).' }),
    reachable: z.boolean(),
    localUrl: z.string().meta({ description: 'Where the service answers on this machine; empty for a worker.' }),
    primaryUrl: z.string(),
    preferredDomain: z.string().nullable(),
    framework: z.null(),
    lastDeployedAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
    resources: resourcesAnswer,
    healthCheck: z
      .union([
        healthCheck,
        z.object({ type: z.literal('engine'), intervalSeconds: z.number().int(), timeoutSeconds: z.number().int(), retries: z.number().int(), startPeriodSeconds: z.number().int() }),
        z.null(),
      ])
      .meta({ description: 'The check in force: the one set, or the default for its kind (`healthCheckDefault`). `engine`: the database answers a query; null: none (a worker must only stay up).' }),
    healthCheckDefault: z.boolean(),
    health: z
      .object({
        status: z.enum(['starting', 'healthy', 'unhealthy', 'none']),
        checkedAt: nullableTimestamp.meta({ description: 'When the monitor saw this state begin.' }),
        detail: z.string().nullable().meta({ description: 'The probe result that made it unhealthy, e.g. "HTTP 500 from /health".' }),
      })
      .meta({ id: 'ServiceHealth' }),
    restarts: z.number().int().meta({ description: 'Restarts of the current release’s container by Docker.' }),
  })
  .meta({ id: 'Service' });

export const project = z
  .object({
    id,
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    status: z.enum(['idle', 'active']).meta({ description: '`active` when one of its services runs.' }),
    serviceCount: z.number().int(),
    lastUpdatedAt: timestamp,
    services: z.array(service),
  })
  .meta({ id: 'Project' });

const projectAnswer = z.object({ project });

export const databaseSuggestion = z
  .object({ key: z.string(), value: z.string().meta({ description: 'A reference such as `${db.DATABASE_URL}`.' }), label: z.string() })
  .meta({ id: 'DatabaseVariableSuggestion' });

export const serviceReference = z
  .object({
    fromServiceId: id.meta({ description: 'The service whose variable holds the reference.' }),
    key: z.string().meta({ description: 'That variable.' }),
    toServiceId: id.meta({ description: 'The service the reference names.' }),
    toKey: z.string().meta({ description: 'The variable of that service it names.' }),
  })
  .meta({ id: 'ServiceReference' });

export const projectsApi = {
  list: endpoint({
    method: 'get',
    path: '/api/projects',
    operationId: 'listProjects',
    tag: 'Projects',
    summary: 'The projects the key can see, with their services',
    access: 'read',
    response: z.object({ projects: z.array(project) }),
  }),
  create: endpoint({
    method: 'post',
    path: '/api/projects',
    operationId: 'createProject',
    tag: 'Projects',
    summary: 'Create a project',
    access: 'write',
    allProjects: true,
    body: z.object({ name: name(100), description: text(2000).default('') }),
    response: projectAnswer,
  }),
  get: endpoint({
    method: 'get',
    path: '/api/projects/:projectSlug',
    operationId: 'getProject',
    tag: 'Projects',
    summary: 'One project by its slug (or id)',
    access: 'read',
    response: projectAnswer,
  }),
  update: endpoint({
    method: 'patch',
    path: '/api/projects/:projectId',
    operationId: 'updateProject',
    tag: 'Projects',
    summary: 'Rename a project or change its description (the slug stays)',
    access: 'write',
    body: z
      .object({ name: name(100).optional(), description: text(2000).optional() })
      .refine((b) => b.name !== undefined || b.description !== undefined, 'give name or description'),
    response: projectAnswer,
  }),
  delete: endpoint({
    method: 'delete',
    path: '/api/projects/:projectId',
    operationId: 'deleteProject',
    tag: 'Projects',
    summary: 'Delete a project, its services, their containers, volumes and secrets',
    access: 'write',
    response: okWithProxy,
  }),
  databaseVariableSuggestions: endpoint({
    method: 'get',
    path: '/api/projects/:projectId/database-variable-suggestions',
    operationId: 'listDatabaseVariableSuggestions',
    tag: 'Projects',
    summary: 'References to the connection URLs of the project’s databases, to use as variable values',
    access: 'read',
    response: z.object({ suggestions: z.array(databaseSuggestion) }),
  }),
  references: endpoint({
    method: 'get',
    path: '/api/projects/:projectId/references',
    operationId: 'listProjectReferences',
    tag: 'Projects',
    summary: 'The `${service.KEY}` references between the project’s services: which variable uses which (never a value)',
    description:
      'One entry per variable and referenced variable, in the order of the services and their variables. A reference to a service that does not exist, or to the service itself, is left out; one to a variable the named service does not have is listed (it stays unresolved).',
    access: 'read',
    response: z.object({ references: z.array(serviceReference) }),
  }),
};
