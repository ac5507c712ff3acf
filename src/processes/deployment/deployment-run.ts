import { mkdirSync, rmSync } from 'node:fs';
import { join, posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recorded } from '../recorded.js';
import { planFromRelease, pruneReleases, recordGoneLive, releaseBefore, releaseDraftOf, watchUntilOf, type RunPlan } from './runs/release-run.js';
import type Docker from 'dockerode';
import { deployment, type DeploymentRequest } from '../../../commands/deployment/aggregate.js';
import type { KeptRelease } from '../../../commands/release/aggregate.js';
import { reasonText } from '../../../commands/shared/printable.js';
import type { DeploymentEvent } from '../../../commands/deployment/events.js';
import { deploymentSteps } from '../../../commands/deployment/handlers.js';
import { NO_RELEASE, service as serviceAggregate } from '../../../commands/service/aggregate.js';
import type { Release } from '../../../commands/service/events.js';
import { releaseService } from '../../../commands/service/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { findService, type ServiceRow } from '../../../projections/service-queries.js';
import { chooseBuild, insideRoot } from '../../build/build-plan.js';
import { Checkout, CheckoutRefusal } from '../../build/checkout.js';
import { baseImagesOf } from '../../build/dockerfile-bases.js';
import { cloneBranch } from '../../build/git-source.js';
import { checkoutPushed } from '../../git/pushed-checkout.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { vetRegistry } from '../../outbound/image-registry.js';
import { detect, type PackImages } from '../../build/packbuilder/detect.js';
import type { InstallationImages } from '../../installation-images.js';
import { packDockerfile } from '../../build/packbuilder/dockerfile.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { ProxyResult } from '../../proxy/caddy-config.js';
import { LABEL, type ContainerRuntime } from '../../runtime/container-runtime.js';
import type { Keyring } from '../../secrets/keyring.js';
import { createRedactor, secretValues } from '../../secrets/redactor.js';
import { privateDirectory } from '../../private-files.js';
import { loadProjectVariables } from '../../variables/project-variables.js';
import { unresolvedReferences } from '../../variables/references.js';
import type { DeploymentLog } from './toolkit/deployment-log.js';
import { deployDatabase, type DatabaseTls } from './runs/database-run.js';
import { resolveImage } from './runs/image-resolution.js';
import { resourcesOfRun, type DefaultResources, type RunResources } from './toolkit/service-resources.js';
import { gateOf, passGate } from './runs/readiness.js';
import { runOnSwarm } from './runs/swarm-run.js';
import type { ClusterTarget } from '../../cluster/cluster-target.js';
import type { NodeEngines } from '../../cluster/node-engines.js';

export interface DeployTimeouts {
  cloneMs: number;
  buildMs: number;
  pullMs: number;
  /** From container start until it answers HTTP (web) or has stayed up (worker). */
  startMs: number;
  workerSettleMs: number;
  /** Time the proxy gets to finish requests already sent to the previous container. */
  drainMs: number;
  stopGraceSeconds: number;
}

export interface DeploySettings {
  workDir: string;
  timeouts: DeployTimeouts;
  /** False when Slipway runs without a proxy: releases are recorded but nothing routes them. */
  proxyEnabled: boolean;
  /** How long a database may take to answer; how long a move's dump or restore may take. */
  databases: { startMs: number; copyMs: number };
}

export interface RunDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  keyring: Keyring;
  runtime: ContainerRuntime;
  proxy: { sync(position: string | null): Promise<ProxyResult> };
  settings: DeploySettings;
  /** The images in force now: the installation's settings change them without a restart. */
  images: () => Promise<InstallationImages>;
  /** Where a deployment may fetch from for its service: the repository's server, an image's registry. */
  outbound: DestinationPolicy;
  /** The server certificate of a Postgres-compatible service; null runs it without TLS. */
  databaseTls?: DatabaseTls;
  /** The installation's `defaultResources`; none when absent. */
  defaultResources?: DefaultResources;
  /** Where `git push` stores each service's commits: the source of a deployment whose `source` is `push`. */
  pushedRepositories?: { pathOf(serviceId: string): string };
  /** The cluster, once the installation is one: web and worker releases then run as Swarm services. */
  cluster?: () => Promise<ClusterTarget | null>;
  /** Cluster mode: the engines of the nodes database services are pinned to. */
  nodes?: NodeEngines;
}

/** What a deployment that went live leaves to do once the service is free again: retire, and watch the release. */
export interface WentLive {
  retire(): Promise<void>;
  watch: ReleaseWatch | null;
}

/** A new release to watch for its first seconds, and the release to put back if it misbehaves. */
export interface ReleaseWatch {
  deploymentId: string;
  serviceId: string;
  containerName: string;
  previous: KeptRelease | null;
  row: ServiceRow;
  /** The limits it runs with, to say "out of memory (limit …)". */
  resources: RunResources;
  /** When the watch ends (epoch ms), as recorded with the deployment's success. */
  until: number;
  /** Cluster mode: the release is this Swarm service's current spec, watched through its tasks. */
  swarm?: { docker: Docker; service: string };
}

/** A failure whose message is the whole story for the user; anything else is prefixed with its step. */
export class DeployFailure extends Error {}

export const networkOf = (projectId: string) => `slipway-${projectId}`;
export const containerNameOf = (slug: string, deploymentId: string) => `slipway-${slug}-${deploymentId}`;
const imageTagOf = (row: ServiceRow, deploymentId: string) => `slipway/${row.slug}-${row.id.slice(0, 8)}:${deploymentId}`;

export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A signal that aborts with `parent` or after `ms`. Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`:
 * in Node 20 the garbage collector can take the timeout signal inside `any` before it fires
 * (nodejs/node#57736), and a step would then never end. Here the timer holds the controller.
 */
function deadline(parent: AbortSignal, ms: number) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('step deadline', 'TimeoutError')), ms);
  const fromParent = () => controller.abort(parent.reason);
  if (parent.aborted) fromParent();
  else parent.addEventListener('abort', fromParent, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener('abort', fromParent);
    },
  };
}

/** One step with its own deadline inside the deployment's abort signal. */
export async function step<T>(name: string, ms: number, parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal, clear } = deadline(parent, ms);
  const work = fn(signal);
  try {
    // The deadline holds even when a call does not honour its signal (an engine that never answers).
    return await Promise.race([work, abortedPromise(signal)]);
  } catch (error) {
    work.catch(() => undefined);
    if (parent.aborted) throw error;
    if (signal.aborted) throw new DeployFailure(`${name} did not finish within ${Math.round(ms / 1000)} s`);
    if (error instanceof DeployFailure) throw error;
    throw new DeployFailure(`${name} failed: ${message(error)}`);
  } finally {
    clear();
  }
}

/** How a fresh build or pull runs: with today's variables and settings. */
const todaysPlan = ({ row, env }: Prepared) => ({
  env,
  internalPort: row.internal_port,
  web: row.runtime_mode !== 'worker',
  resources: row.resources,
  healthCheck: row.health_check,
  config: null,
});

export interface Prepared {
  row: ServiceRow;
  env: Record<string, string>;
  gitToken: string | null;
  secrets: string[];
}

async function prepare(deps: RunDeps, serviceId: string): Promise<Prepared> {
  const { state } = await loadAggregate(deps.cmd, serviceAggregate, serviceId);
  const row = await findService(deps.db, serviceId);
  if (state.status !== 'live' || !state.service || !row) throw new DeployFailure('the service was deleted');
  const variables = await loadProjectVariables(deps.db, deps.keyring, row.project_id);
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const { row: variable, value } of variables.variablesOf(serviceId)) {
    const resolved = variables.resolve(value);
    const missing = unresolvedReferences(resolved);
    if (missing.length > 0) {
      throw new DeployFailure(
        `variable ${variable.key} refers to ${missing.join(', ')}, which no service of this project defines; set that variable or fix the reference`,
      );
    }
    env[variable.key] = resolved;
    secrets.push(...secretValues([{ key: variable.key, value, resolved }]));
  }
  env.PORT ??= String(row.internal_port);
  const gitToken = state.service.gitToken ? await deps.keyring.decrypt(state.service.gitToken) : null;
  if (gitToken) secrets.push(gitToken);
  return { row, env, gitToken, secrets };
}

/** Any error of `fn` as the deployment's reason: a refused checkout path as it is (it names the path), others after `prefix`. */
function asDeployFailure<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CheckoutRefusal) throw new DeployFailure(error.message);
    throw new DeployFailure(`${prefix}${message(error)}`);
  }
}

/** The Dockerfile's text and how it came about: the repository's, read through the checkout, or the packbuilder's. */
function dockerfileFor(packImages: PackImages, p: Prepared, checkout: Checkout, rootDir: string, log: DeploymentLog) {
  const { row } = p;
  const inRoot = (path: string) => posix.join(rootDir, path);
  const plan = asDeployFailure('', () =>
    chooseBuild(
      { buildMethod: row.build_method as 'auto', dockerfilePath: row.dockerfile_path, dockerfilePathVariable: p.env.PLATFORM_DOCKERFILE_PATH ?? null },
      (path) => checkout.isFile(inRoot(path)),
    ),
  );
  if (plan.method === 'dockerfile') {
    log.system(`Building with ${plan.dockerfile} (build method ${row.build_method}); custom install, build and start commands do not apply`);
    const text = asDeployFailure('', () => checkout.read(inRoot(plan.dockerfile)));
    if (text === null) throw new DeployFailure(`${inRoot(plan.dockerfile)} disappeared from the checkout`);
    return { text, method: 'dockerfile' as const, path: inRoot(plan.dockerfile) };
  }
  const pack = asDeployFailure('packbuilder: ', () =>
    detect({
      files: checkout.filesIn(rootDir),
      installCommand: row.install_command,
      buildCommand: row.build_command,
      startCommand: row.start_command,
      runtimeMode: row.runtime_mode as 'web',
      internalPort: row.internal_port,
      images: packImages,
    }),
  );
  for (const note of pack.notes) log.system(`packbuilder: ${note}`);
  const text = packDockerfile(pack, packImages, row.internal_port);
  for (const line of text.split('\n')) log.system(`  ${line}`);
  return { text, method: 'packbuilder' as const };
}

type SourceRequest = Pick<DeploymentRequest, 'commitSha' | 'source'>;

/** Clones and builds a source service; returns the image tag and the builder that ran. */
async function buildFromSource(deps: RunDeps, id: string, p: Prepared, source: SourceRequest, log: DeploymentLog, signal: AbortSignal) {
  const { row } = p;
  const { timeouts } = deps.settings;
  const dir = join(deps.settings.workDir, id);
  privateDirectory(deps.settings.workDir);
  rmSync(dir, { recursive: true, force: true });
  // Exclusively: a directory of this id that appeared meanwhile is not ours to build in.
  mkdirSync(dir, { mode: 0o700 });
  try {
    const commitSha = source.commitSha ?? null;
    const commit = await step('git clone', timeouts.cloneMs, signal, (s) => {
      const onLine = (l: string) => log.write(l, 'stderr');
      if (source.source === 'push') {
        if (!deps.pushedRepositories || !commitSha) throw new DeployFailure('a pushed deployment needs the pushed commit and the repository it was pushed to');
        log.system(`Checking out pushed commit ${commitSha}`);
        return checkoutPushed({ repository: deps.pushedRepositories.pathOf(row.id), commit: commitSha, dir: join(dir, 'src'), signal: s, onLine });
      }
      log.system(`Cloning ${row.repo_url} (branch ${row.branch}${commitSha ? `, commit ${commitSha}` : ''}, depth 1)`);
      return cloneBranch({ url: row.repo_url, branch: row.branch, commit: commitSha, token: p.gitToken, dir: join(dir, 'src'), signal: s, onLine, outbound: deps.outbound });
    });
    // The subject line is the repository's text: kept printable and short.
    const commitMessage = reasonText(commit.message).slice(0, 200);
    await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentCommitResolved', data: { commitSha: commit.sha, commitMessage } });
    log.system(`Checked out commit ${commit.sha}`);

    const checkout = new Checkout(join(dir, 'src'));
    const rootDir = row.root_dir ? insideRoot(row.root_dir) : '.';
    const contextDir = rootDir === null ? null : asDeployFailure('', () => checkout.directory(rootDir));
    if (rootDir === null || contextDir === null) {
      throw new DeployFailure(`the root directory ${JSON.stringify(row.root_dir)} does not exist in the repository`);
    }
    const dockerfile = dockerfileFor((await deps.images()).pack, p, checkout, rootDir, log);
    if (dockerfile.method === 'dockerfile') {
      // The engine pulls the repository's base images itself: their registries are the key's destinations too.
      for (const base of baseImagesOf(dockerfile.text)) {
        await vetRegistry(deps.outbound, base).catch((error: unknown) => {
          throw new DeployFailure(`${dockerfile.path} uses the image ${base}: ${message(error)}`);
        });
      }
    }
    const tag = imageTagOf(row, id);
    const labels = { [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id };
    await step('docker build', timeouts.buildMs, signal, (s) =>
      deps.runtime.build({ contextDir, dockerfileText: dockerfile.text, tag, labels }, (l) => log.write(l), s),
    );
    return { tag, method: dockerfile.method, commitSha: commit.sha, commitMessage };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pulls one of the installation's own images (a database engine's) unless it is present. */
export async function ensureImage(deps: RunDeps, reference: string, log: DeploymentLog, signal: AbortSignal) {
  if (await deps.runtime.imageExists(reference)) {
    log.system(`Image ${reference} is present`);
    return;
  }
  log.system(`Pulling ${reference}`);
  await step(`pulling ${reference}`, deps.settings.timeouts.pullMs, signal, (s) => deps.runtime.pull(reference, (l) => log.write(l), s));
}

/** How long the output of a container that exited is read on before the deployment fails without the rest. */
export const STARTUP_DRAIN_MS = 3_000;

/**
 * Copies the container's output into the deployment log until stopped. `stop(drainMs)` first waits (at most
 * `drainMs`) for the output to end by itself, as the output of an exited container does: its last lines, the
 * crash message most often, arrive after the exit was seen.
 */
export function followStartup(deps: RunDeps, name: string, log: DeploymentLog) {
  const controller = new AbortController();
  const done = (async () => {
    for await (const l of deps.runtime.logs(name, { follow: true, signal: controller.signal })) log.write(l.line, l.stream);
  })().catch(() => undefined);
  return async (drainMs = 0) => {
    if (drainMs > 0) await Promise.race([done, sleep(drainMs)]);
    controller.abort();
    await done;
  };
}

/**
 * One deployment from start to end: build (or pull), run, wait until ready, switch the route. Every
 * failure, abort or timeout removes what this run created and is recorded. On success it returns the
 * retirement of the previous containers, for the caller to run once the service is free again.
 */
export async function runDeployment(
  deps: RunDeps,
  id: string,
  serviceId: string,
  log: DeploymentLog,
  signal: AbortSignal,
): Promise<WentLive | null> {
  const started = await deploymentSteps.start(deps.cmd, id);
  if (started.events.length === 0) return null;
  log.system(`Deployment ${id} started`);
  let containerName: string | null = null;
  let builtTag: string | null = null;
  let previous: Release | null = null;
  let released = false;
  try {
    const p = await prepare(deps, serviceId);
    log.setRedactor(createRedactor(p.secrets));
    const { row } = p;
    // The runtime bounds a ping with its own call deadline.
    await deps.runtime.ping().catch((error: unknown) => {
      throw new DeployFailure(`Docker engine unreachable: ${message(error)}`);
    });

    const request = (await loadAggregate(deps.cmd, deployment, id)).state.request;
    if (row.kind === 'database') {
      await deployDatabase(deps, id, p, log, signal, request);
      return null;
    }
    let plan: RunPlan;
    if (request.kind !== 'deploy') {
      plan = await planFromRelease(deps, id, request, p, log);
    } else if (row.kind === 'image') {
      const resolved = await resolveImage(deps, row.docker_image!, log, signal);
      await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: row.docker_image!, buildMethod: 'image', ...resolved } });
      // By id: the release runs what was resolved now, whatever the tag points at later.
      plan = { ...todaysPlan(p), image: resolved.imageId, imageRef: row.docker_image!, buildMethod: 'image', commitSha: null, commitMessage: null };
    } else {
      const built = await buildFromSource(deps, id, p, request, log, signal);
      builtTag = built.tag;
      const imageId = (await deps.runtime.imageInfo(built.tag))?.id ?? null;
      await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: built.tag, buildMethod: built.method, imageId, digest: null } });
      log.system(`Built image ${built.tag}`);
      plan = { ...todaysPlan(p), image: built.tag, imageRef: built.tag, buildMethod: built.method, commitSha: built.commitSha, commitMessage: built.commitMessage };
    }
    signal.throwIfAborted();

    const cluster = await deps.cluster?.();
    if (cluster) {
      const result = await runOnSwarm(deps, cluster, id, p, plan, log, signal, request.kind === 'deploy');
      builtTag = null;
      return 'live' in result ? result.live : null;
    }

    const { web } = plan;
    // The service as this run has it: a kept release may run with its own port and health check.
    const ranAs: ServiceRow = { ...row, internal_port: plan.internalPort, runtime_mode: web ? row.runtime_mode : 'worker', health_check: plan.healthCheck };
    const name = containerNameOf(row.slug, id);
    const draft = await releaseDraftOf(deps, p, plan);
    await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentContainerStarted', data: { containerName: name, release: draft } });
    containerName = name;
    const resources = await resourcesOfRun(plan.resources, deps.defaultResources);
    const running = await step('creating the container', deps.settings.timeouts.startMs, signal, async () => {
      await deps.runtime.ensureNetwork(networkOf(row.project_id), { [LABEL.project]: row.project_id });
      return deps.runtime.run({
        name,
        image: plan.image,
        env: plan.env,
        labels: { [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id },
        network: networkOf(row.project_id),
        aliases: [row.slug],
        internalPort: web ? plan.internalPort : null,
        publish: web,
        privileges: 'app',
        limits: resources.limits,
      });
    });
    log.system(`Started container ${name}${web ? `; waiting for it to answer on port ${plan.internalPort}` : ''}`);
    const stopFollowing = followStartup(deps, name, log);
    let ready = false;
    try {
      await step('starting the container', deps.settings.timeouts.startMs + 5_000, signal, (s) =>
        passGate(gateOf(deps, ranAs, name, log, resources), s),
      );
      ready = true;
    } finally {
      await stopFollowing(ready || signal.aborted ? 0 : STARTUP_DRAIN_MS);
    }
    log.system(web ? 'The app answers; switching the route to it' : 'The worker is up');

    previous = (await loadAggregate(deps.cmd, serviceAggregate, serviceId)).state.release;
    signal.throwIfAborted();
    const restartPolicy = step('setting the restart policy', 10_000, signal, () => deps.runtime.keepRunning(name));
    restartPolicy.catch(() => undefined);
    const routeBuildMethod = plan.buildMethod === 'image' ? null : plan.buildMethod;
    const release = await releaseService(deps.cmd, serviceId, { deploymentId: id, containerName: name, upstreamPort: running.hostPort, buildMethod: routeBuildMethod });
    released = true;
    if (web && deps.settings.proxyEnabled) {
      const proxy = await deps.proxy.sync(release.position);
      if (!proxy.ok) throw new DeployFailure(`the proxy did not take the new route: ${proxy.detail}`);
    }
    await restartPolicy;
    // Lines go out before the event that ends the deployment, so a stream reader sees them all.
    log.system(`Deployment succeeded${web ? `: http://localhost:${row.host_port}` : ''}`);
    await log.flush();
    const watchUntil = await watchUntilOf(deps.cmd, serviceId, request.kind === 'deploy');
    const ended = await recorded(() => deploymentSteps.succeed(deps.cmd, id, { release: draft, watchUntil }));
    if (ended.events[0]?.type !== 'DeploymentSucceeded') throw new DeployFailure('aborted by request');
    released = false;
    containerName = null;
    builtTag = null;
    const live = await wentLive(deps, id, serviceId, ended.events, log);
    // What to retire is fixed now; retiring runs after this deployment, so the next one need not wait.
    const previousRuns = await earlierContainersOf(deps, serviceId, id).catch(() => []);
    const before = await releaseBefore(deps, serviceId, previous?.deploymentId ?? null).catch(() => null);
    return {
      retire: async () => {
        await retire(deps, previousRuns, log);
        await pruneReleases(deps, serviceId, log);
      },
      watch: watchUntil && live ? { deploymentId: id, serviceId, containerName: name, previous: before, row: ranAs, resources, until: Date.parse(watchUntil) } : null,
    };
  } catch (error) {
    const reason = signal.aborted ? String(signal.reason ?? 'aborted') : error instanceof DeployFailure ? error.message : `unexpected error: ${message(error)}`;
    log.system(`Deployment ${signal.aborted ? 'aborted' : 'failed'}: ${reason}`);
    if (released) await undoRelease(deps, serviceId, previous);
    if (containerName) await deps.runtime.remove(containerName, 1).catch(() => undefined);
    if (builtTag) await deps.runtime.removeImage(builtTag).catch(() => undefined);
    await log.flush();
    await recorded(() => (signal.aborted ? deploymentSteps.markAborted(deps.cmd, id, reason) : deploymentSteps.fail(deps.cmd, id, reason)));
    return null;
  } finally {
    await log.flush();
  }
}

/**
 * Records in the service's release history the release its success carries (`ended`: the append that ended the
 * deployment). If that fails, the deployer's start-up repair records it from the same event.
 */
export async function wentLive(deps: RunDeps, id: string, serviceId: string, ended: readonly DeploymentEvent[], log: DeploymentLog) {
  const succeeded = ended.find((e) => e.type === 'DeploymentSucceeded');
  const draft = succeeded?.type === 'DeploymentSucceeded' ? succeeded.data.release : undefined;
  const live = draft ? await recorded(() => recordGoneLive(deps.cmd, serviceId, id, draft)).catch(() => undefined) : undefined;
  if (!live) {
    log.system(
      draft
        ? 'The release could not be recorded yet; Slipway records it at its next start'
        : 'The release could not be recorded (its variables could not be sealed); this deployment cannot be rolled back to',
    );
    await log.flush();
  }
  return live;
}

/** Puts the route back where it was before this run, so the previous container keeps serving. */
async function undoRelease(deps: RunDeps, serviceId: string, previous: Release | null) {
  const back = await releaseService(deps.cmd, serviceId, previous ?? NO_RELEASE).catch(() => null);
  if (back && deps.settings.proxyEnabled) await deps.proxy.sync(back.position).catch(() => undefined);
}

/** Containers of this service's earlier deployments; their images stay while their releases are kept. */
async function earlierContainersOf(deps: RunDeps, serviceId: string, keep: string): Promise<string[]> {
  const containers = (await deps.runtime.list({ [LABEL.service]: serviceId })).filter((c) => c.labels[LABEL.deployment] !== keep);
  return containers.map((c) => c.name);
}

/** Gives requests in flight time to finish, then stops the earlier containers. */
async function retire(deps: RunDeps, containers: string[], log: DeploymentLog) {
  if (containers.length > 0) await sleep(deps.settings.timeouts.drainMs);
  for (const name of containers) {
    log.system(`Retiring ${name}`);
    await deps.runtime.remove(name, deps.settings.timeouts.stopGraceSeconds).catch(() => undefined);
  }
  await log.flush();
}
