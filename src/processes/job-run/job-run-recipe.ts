import type { JobRunRequest } from '../../../commands/job-run/events.js';
import { currentRelease, type KeptRelease } from '../../../commands/release/aggregate.js';
import { loadReleases } from '../../../commands/release/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { DomainError } from '../../../commands/shared/domain-error.js';
import { findService, type ServiceRow } from '../../../projections/service-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import { LABEL, type ContainerRuntime, type ContainerSpec } from '../../runtime/container-runtime.js';
import type { Keyring } from '../../secrets/keyring.js';
import { createRedactor, secretValues } from '../../secrets/redactor.js';
import { resourcesOfRun, type DefaultResources } from '../deployment/toolkit/service-resources.js';

/** What a job run needs of the installation to build its container. */
export interface RecipeDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  keyring: Keyring;
  runtime: ContainerRuntime;
  defaultResources: DefaultResources;
  /** The project's network (an overlay in cluster mode). */
  projectNetwork(projectId: string): Promise<string>;
}

/** Why a run cannot start: it ends `failed` with this as its reason, and never runs later. */
export class JobRunRefusal extends Error {}

/** A job run's container: its run id makes starting it idempotent, and a restarted Slipway finds it by it. */
export const jobRunContainerOf = (runId: string) => `slipway-run-${runId}`;

/** The container a run starts, the release it runs and how its output is redacted. */
export interface JobRunRecipe {
  spec: ContainerSpec;
  release: KeptRelease;
  redact(line: string): string;
}

/** Why this service cannot run a command now; null when it can. */
export function refusalOf(service: ServiceRow | null): string | null {
  if (!service) return 'the service was deleted';
  if (service.kind === 'database') return 'a database service runs no commands';
  if (service.status === 'stopped') return 'the service is stopped';
  if (service.current_deployment_id === null) return 'the service has no release yet: deploy it first';
  return null;
}

/** The release's own variables, sealed with it: what its container ran with (references resolved then). */
async function sealedEnv(keyring: Keyring, release: KeptRelease): Promise<Record<string, string>> {
  const opened = await keyring.decrypt(release.config.env);
  if (opened === null) throw new JobRunRefusal(`the variables of release v${release.version} can no longer be read (its data key is gone)`);
  return JSON.parse(opened) as Record<string, string>;
}

const redactorOf = (env: Record<string, string>) => createRedactor(secretValues(Object.entries(env).map(([key, value]) => ({ key, value, resolved: value }))));

/**
 * The container of a run: the service's current release (its image by id and its own sealed variables), on the
 * project's network with the service's limits and the app's privileges, published nowhere and reached by no alias.
 */
export async function recipeOf(deps: RecipeDeps, runId: string, request: JobRunRequest): Promise<JobRunRecipe> {
  const service = await findService(deps.db, request.serviceId);
  const refused = refusalOf(service);
  if (refused || !service) throw new JobRunRefusal(refused ?? 'the service was deleted');
  let release: KeptRelease;
  try {
    release = currentRelease(await loadReleases(deps.cmd, service.id), service.current_deployment_id, 'run a command in');
  } catch (error) {
    if (error instanceof DomainError) throw new JobRunRefusal(error.message);
    throw error;
  }
  if ((await deps.runtime.imageInfo(release.imageId)) === null) throw new JobRunRefusal(`the image of release v${release.version} is gone; deploy again`);
  const env = await sealedEnv(deps.keyring, release);
  const network = await deps.projectNetwork(service.project_id);
  await deps.runtime.ensureNetwork(network, { [LABEL.project]: service.project_id });
  const { limits } = await resourcesOfRun(service.resources, deps.defaultResources);
  return {
    spec: {
      name: jobRunContainerOf(runId),
      image: release.imageId,
      env,
      labels: { [LABEL.project]: service.project_id, [LABEL.service]: service.id, [LABEL.jobRun]: runId },
      network,
      aliases: [],
      internalPort: null,
      publish: false,
      command: request.command,
      privileges: 'app',
      limits,
    },
    release,
    redact: redactorOf(env),
  };
}

/** The redaction of a run that a restarted Slipway follows again: its release's values, if they can still be read. */
export async function redactorOfRelease(deps: RecipeDeps, serviceId: string, releaseId: string): Promise<(line: string) => string> {
  const release = (await loadReleases(deps.cmd, serviceId)).releases.find((r) => r.releaseId === releaseId);
  if (!release) return (line) => line;
  return redactorOf(await sealedEnv(deps.keyring, release).catch(() => ({})));
}
