import { z } from 'zod';
import type { CreateServiceInput } from '../../commands/service/handlers.js';
import { BUILD_METHODS, ENGINES, PUSHED_SOURCE, RUNTIME_MODES } from '../../commands/service/fields.js';
import { ENGINE_CATALOGUE } from '../../commands/service/engines.js';
import { storedHealthCheck } from '../../commands/service/health-check.js';
import { swarmNodeId } from '../../commands/cluster/events.js';
import { nodeLabels } from '../../commands/cluster/node-labels.js';
import { hostOf, type DestinationPolicy } from '../outbound/destination-policy.js';
import { vetRegistry } from '../outbound/image-registry.js';
import { resourcesBody } from './resource-bodies.js';
import { hostname } from '../shared/hostname.js';
import { branch, commandLine, envKey, imageReference, parseInput, envValue, name, optionalCommand, port, repoPath, text } from './validation.js';

const envList = z
  .array(z.object({ key: envKey, value: envValue }))
  .max(500)
  .default([])
  .refine((list) => new Set(list.map((e) => e.key)).size === list.length, 'each key may appear once');

const optionalPath = repoPath
  .nullable()
  .optional()
  .transform((p) => (p === undefined ? undefined : p === null || p === '' || p === '.' ? null : p));

const parsesAsUrl = (u: string) => {
  try {
    return Boolean(new URL(u).hostname);
  } catch {
    return false;
  }
};

// Cloned over HTTP(S) only: the host is then resolved and checked by the outbound policy, and git connects to
// exactly what was checked. ssh, git:// and local paths would connect where the policy cannot see.
const gitUrl = z
  .string()
  .max(2048)
  .refine((u) => /^https?:\/\/[^\s/]+\/\S+$/.test(u) && parsesAsUrl(u), 'must be an http:// or https:// Git URL')
  .refine((u) => !/^https?:\/\/[^/\s]*@/.test(u), { message: 'must not carry credentials: send the token as gitToken' });

/** How a service keeps and watches its releases (absent: 10 kept, watched 60 s, rolled back on its own). */
const releasePolicy = {
  releasesKept: z.number().int().min(1).max(50).optional(),
  watchSeconds: z.number().int().min(0).max(3600).optional(),
  autoRollback: z.boolean().optional(),
};

/** An app's release phase: a command run before each new image takes traffic. */
const releasePhase = {
  releaseCommand: commandLine
    .nullable()
    .optional()
    .meta({
      description:
        'Run once in a container of the new image, with the new variables, after the build and before the new release takes traffic (migrations). A non-zero exit fails the deployment and the previous release keeps serving. A string runs with `sh -c`; an array as argv; null: none.',
    }),
  releaseCommandOnRollback: z.boolean().optional().meta({ description: 'Whether a rollback runs the release command too (default false).' }),
};

/** Cluster mode: tasks and the nodes they may run on (a single server runs one container). */
const placement = {
  replicas: z.number().int().min(1).max(100).optional().meta({ description: 'Cluster mode: how many tasks run (default 1).' }),
  nodeLabels: nodeLabels.optional().meta({ description: 'Cluster mode: only nodes with all these labels run the service’s tasks.' }),
};

// The bodies' common tail, in the order the API description lists the fields.
/** Every service: its variables, how its releases are kept and watched, where its tasks run. */
const running = { env: envList, ...releasePolicy, ...placement };
/** Every service, last: its limits and its health check. */
const guarded = { resources: resourcesBody.optional(), healthCheck: storedHealthCheck.optional() };
/** An app (from source or an image): a web service or a worker, and its port. */
const appTail = { runtimeMode: z.enum(RUNTIME_MODES).default('web'), internalPort: port.optional(), ...releasePhase, ...running, ...guarded };

const sourceFields = {
  name: name(),
  branch: branch.default('main'),
  rootDir: optionalPath,
  gitToken: text(4096).nullable().optional(),
  installCommand: optionalCommand,
  buildCommand: optionalCommand,
  startCommand: optionalCommand,
  buildMethod: z.enum(BUILD_METHODS).default('auto'),
  dockerfilePath: optionalPath,
  ...appTail,
};

const hostedSource = z.object({
  ...sourceFields,
  repoFullName: z.string().max(200).regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be <owner>/<repo>'),
});
const directSource = z.object({ ...sourceFields, repoFullName: z.null().optional(), repoUrl: gitUrl });
// No upstream: what is pushed to Slipway's remote is all there is, so there is nothing to clone and no token.
const pushedSource = z.object({
  ...sourceFields,
  gitToken: z.null({ error: 'a service built from what is pushed to it has no upstream to clone: it takes no gitToken' }).optional(),
  repoFullName: z.null().optional(),
  repoUrl: z.literal(PUSHED_SOURCE),
});
const imageService = z.object({
  name: name(),
  repoUrl: z.literal('docker-image'),
  dockerImage: imageReference,
  branch: branch.default('main'),
  startCommand: optionalCommand,
  ...appTail,
});
const databaseService = z.object({
  name: name(),
  repoFullName: z.string().regex(new RegExp(`^database:(${ENGINES.join('|')})$`), `must be database:<engine>, engine one of ${ENGINES.join(', ')}`),
  repoUrl: z.literal('database').default('database'),
  branch: branch.default('main'),
  internalPort: port.optional(),
  databasePublicEnabled: z.boolean().default(false),
  databasePublicHostname: hostname.nullable().optional(),
  postgresLogicalReplicationEnabled: z.boolean().default(false),
  ...running,
  // Its volume lives on one node: one task, never two writing the same files.
  replicas: z.literal(1).optional().meta({ description: 'A database runs one task.' }),
  nodeId: swarmNodeId.optional().meta({ description: 'Cluster mode: the node its container and volume go on (a ready, active node); absent: the manager, where Slipway runs. `POST …/move` moves it later.' }),
  ...guarded,
});

/** The five shapes a create body may have, for the API description; `parseCreateService` picks one by its fields. */
export const createServiceBody = z.union([hostedSource, directSource, pushedSource, imageService, databaseService]);

const defaultPort = (mode: string) => (mode === 'static' ? 8080 : 3000);

const none = {
  dockerImage: null,
  rootDir: null,
  gitToken: null,
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  buildMethod: 'auto',
  dockerfilePath: null,
  databaseEngine: null,
  databasePublicEnabled: false,
  databasePublicHostname: null,
  postgresLogicalReplicationEnabled: false,
} as const;

const databaseInput = databaseService.transform((b): CreateServiceInput => {
  const engine = b.repoFullName.slice('database:'.length) as (typeof ENGINES)[number];
  return {
    ...none,
    ...b,
    kind: 'database',
    repoUrl: 'database',
    runtimeMode: 'web',
    internalPort: ENGINE_CATALOGUE[engine].port,
    databaseEngine: engine,
    databasePublicHostname: b.databasePublicHostname ?? null,
  };
});

const imageInput = imageService.transform((b): CreateServiceInput => ({
  ...none,
  ...b,
  kind: 'image',
  repoFullName: `image:${b.dockerImage}`,
  startCommand: b.startCommand ?? null,
  internalPort: b.internalPort ?? defaultPort(b.runtimeMode),
}));

type SourceBody = z.infer<typeof directSource> | z.infer<typeof hostedSource> | z.infer<typeof pushedSource>;

function sourceInput(b: SourceBody, repoFullName: string | null, repoUrl: string): CreateServiceInput {
  return {
    ...none,
    ...b,
    kind: 'source',
    repoFullName,
    repoUrl,
    rootDir: b.rootDir ?? null,
    gitToken: b.gitToken ?? null,
    installCommand: b.installCommand ?? null,
    buildCommand: b.buildCommand ?? null,
    startCommand: b.startCommand ?? null,
    dockerfilePath: b.dockerfilePath ?? null,
    internalPort: b.internalPort ?? defaultPort(b.runtimeMode),
  };
}

/** The create body decides the variant: database, container image, hosted repository, pushed or direct Git URL. */
export function parseCreateService(body: unknown, gitBaseUrl: string): CreateServiceInput {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (b.repoUrl === 'database' || String(b.repoFullName ?? '').startsWith('database:')) return parseInput(databaseInput, body);
  if (b.repoUrl === 'docker-image' || 'dockerImage' in b) return parseInput(imageInput, body);
  if (typeof b.repoFullName === 'string') {
    const hosted = parseInput(hostedSource, body);
    return sourceInput(hosted, hosted.repoFullName, `${gitBaseUrl}/${hosted.repoFullName}.git`);
  }
  if (b.repoUrl === PUSHED_SOURCE) return sourceInput(parseInput(pushedSource, body), null, PUSHED_SOURCE);
  const direct = parseInput(directSource, body);
  return sourceInput(direct, null, direct.repoUrl);
}

/**
 * Refuses (400 `forbidden_destination`) a service whose source the outbound policy refuses: the Git server
 * of a repository (a `repoFullName` lives on SLIPWAY_GIT_BASE_URL), the registry of an image.
 */
export async function vetServiceSource(policy: DestinationPolicy, input: CreateServiceInput): Promise<void> {
  if (input.kind === 'image' && input.dockerImage) return vetRegistry(policy, input.dockerImage, 'dockerImage');
  if (input.kind !== 'source' || input.repoUrl === PUSHED_SOURCE) return;
  const url = new URL(input.repoUrl);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  await policy.vet(hostOf(url), port, input.repoFullName ? 'repoFullName' : 'repoUrl');
}

/** A PATCH that moves an image service to another image is vetted as its creation was: the registry's destination. */
export async function vetServiceChanges(policy: DestinationPolicy, changes: { dockerImage?: string }): Promise<void> {
  if (changes.dockerImage) await vetRegistry(policy, changes.dockerImage, 'dockerImage');
}

export const updateServiceBody = z
  .object({
    branch: branch.optional(),
    rootDir: optionalPath,
    installCommand: optionalCommand,
    buildCommand: optionalCommand,
    startCommand: optionalCommand,
    buildMethod: z.enum(BUILD_METHODS).optional(),
    dockerfilePath: optionalPath,
    runtimeMode: z.enum(RUNTIME_MODES).optional(),
    internalPort: port.optional(),
    gitToken: text(4096).nullable().optional(),
    ...releasePolicy,
    ...releasePhase,
    ...placement,
    healthCheck: storedHealthCheck.optional(),
    dockerImage: imageReference.optional(),
    resources: resourcesBody
      .nullable()
      .optional()
      .transform((r) => (r === null ? {} : r))
      .meta({ description: 'Replaces the whole set: a key left out (or `null` for all) takes the installation’s default again.' }),
  })
  .transform((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)))
  .refine((b) => Object.keys(b).length > 0, 'give at least one of branch, rootDir, installCommand, buildCommand, startCommand, buildMethod, dockerfilePath, runtimeMode, internalPort, gitToken, releasesKept, watchSeconds, autoRollback, releaseCommand, releaseCommandOnRollback, resources, dockerImage, healthCheck, replicas, nodeLabels');
