import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { SwarmServiceSpec } from './swarm-spec.js';

type Auth = { username: string; password: string; serveraddress: string };

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;
const engineMessage = (error: unknown) => ((error as { json?: { message?: string } }).json?.message ?? (error as Error).message).trim();

export interface ServiceInfo {
  ID: string;
  Version: { Index: number };
  Spec: SwarmServiceSpec & { TaskTemplate: { ForceUpdate?: number } };
  UpdateStatus?: { State?: string; Message?: string; StartedAt?: string };
}

export interface TaskInfo {
  ID: string;
  Slot?: number;
  NodeID?: string;
  DesiredState?: string;
  Spec?: { ContainerSpec?: { Image?: string }; ForceUpdate?: number };
  Status?: { State?: string; Err?: string; Message?: string; ContainerStatus?: { ExitCode?: number } };
}

export async function inspectService(docker: Docker, name: string): Promise<ServiceInfo | null> {
  try {
    return (await docker.getService(name).inspect()) as ServiceInfo;
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

interface NetworkInfo {
  Driver?: string;
  Scope?: string;
  Attachable?: boolean;
}

async function inspectNetwork(docker: Docker, name: string): Promise<NetworkInfo | null> {
  try {
    return (await docker.getNetwork(name).inspect()) as NetworkInfo;
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

/**
 * An attachable overlay (the router joins it), made once. Returns once Swarm has allocated it: until then its
 * driver reads empty, and a service or container attached to it can fail on a busy manager.
 */
export async function ensureOverlay(docker: Docker, name: string, labels: Record<string, string> = {}, timeoutMs = 20_000) {
  if (!(await inspectNetwork(docker, name))) {
    await docker.createNetwork({ Name: name, Driver: 'overlay', Attachable: true, CheckDuplicate: true, Labels: labels }).catch((error: unknown) => {
      // Made meanwhile by another deployment of the project.
      if (statusOf(error) !== 409) throw error;
    });
  }
  const end = Date.now() + timeoutMs;
  for (;;) {
    const network = await inspectNetwork(docker, name);
    if (!network) throw new Error(`the network ${name} vanished while it was being made`);
    if (network.Scope !== 'swarm' || !network.Attachable || (network.Driver && network.Driver !== 'overlay')) {
      throw new Error(`the network ${name} exists but is not an attachable overlay (driver ${network.Driver || 'unknown'}, scope ${network.Scope})`);
    }
    if (network.Driver === 'overlay') return;
    if (Date.now() > end) throw new Error(`Swarm did not allocate the network ${name} in ${Math.round(timeoutMs / 1000)} s`);
    await sleep(200);
  }
}

/** The probe as a Swarm config, named by its content (configs cannot change); returns what a ServiceSpec names. */
export async function ensureProbeConfig(docker: Docker, binary: Buffer): Promise<{ configId: string; configName: string }> {
  const { id, name } = await ensureNamedByContent(docker, 'config', 'slipway-probe', binary);
  return { configId: id, configName: name };
}

/**
 * A Swarm config or secret, which cannot change: each content gets its own name (`<prefix>-<hash>`), made once;
 * one made meanwhile by another caller is taken.
 */
export async function ensureNamedByContent(docker: Docker, kind: 'config' | 'secret', prefix: string, data: Buffer): Promise<{ id: string; name: string }> {
  const name = `${prefix}-${createHash('sha256').update(data).digest('hex').slice(0, 16)}`;
  const query = { filters: { name: [name] } };
  const found = (await (kind === 'config' ? docker.listConfigs(query) : docker.listSecrets(query))) as { ID: string; Spec: { Name: string } }[];
  const existing = found.find((c) => c.Spec.Name === name);
  if (existing) return { id: existing.ID, name };
  const spec = { Name: name, Data: data.toString('base64'), Labels: { 'slipway.managed': 'true' } };
  try {
    const created = (await (kind === 'config' ? docker.createConfig(spec) : docker.createSecret(spec))) as { id?: string; ID?: string };
    return { id: (created.id ?? created.ID)!, name };
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    return ensureNamedByContent(docker, kind, prefix, data);
  }
}

/**
 * Updates the service to what `change` makes of its current state, reading it again once when the version was
 * stale ("update out of sequence": changed meanwhile). `change` returns null to leave it as it is. Null when
 * the service does not exist.
 */
async function updateService(
  docker: Docker,
  name: string,
  change: (current: ServiceInfo) => { body: object; authconfig?: Auth } | null,
): Promise<ServiceInfo | null> {
  for (let attempt = 0; ; attempt++) {
    const current = await inspectService(docker, name);
    const update = current && change(current);
    if (!current || !update) return current;
    try {
      await docker.getService(current.ID).update({ ...(update.authconfig ? { authconfig: update.authconfig } : {}), _query: { version: current.Version.Index }, _body: update.body });
      return current;
    } catch (error) {
      if (attempt === 0 && /out of sequence/.test(engineMessage(error))) continue;
      throw error;
    }
  }
}

/**
 * Creates the service, or updates it to `spec`. Each update is forced (a new ForceUpdate), so the same spec
 * again still replaces the tasks (a restart).
 */
export async function createOrUpdateService(docker: Docker, spec: SwarmServiceSpec, auth: Auth): Promise<{ previousUpdate: string | null }> {
  const before = await updateService(docker, spec.Name, (current) => ({
    // The registry's credentials go with the update (X-Registry-Auth) so that every node can pull.
    authconfig: auth,
    body: { ...spec, TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: (current.Spec.TaskTemplate.ForceUpdate ?? 0) + 1 } },
  }));
  if (before) return { previousUpdate: before.UpdateStatus?.StartedAt ?? null };
  await docker.createService(auth, spec);
  return { previousUpdate: null };
}

export type RolloutOutcome = { outcome: 'completed' } | { outcome: 'rolled_back'; reason: string } | { outcome: 'failed'; reason: string };

/** A task of the service's current spec: forced updates keep the image, so the image alone cannot tell. */
export const ofSpec = (t: TaskInfo, spec: ServiceInfo['Spec']) =>
  t.Spec?.ContainerSpec?.Image === spec.TaskTemplate.ContainerSpec.Image && (t.Spec?.ForceUpdate ?? 0) === (spec.TaskTemplate.ForceUpdate ?? 0);

/** Why tasks of the new spec failed, in Swarm's and the engine's words (for a rollback's reason). */
async function taskFailures(docker: Docker, name: string, spec: ServiceInfo['Spec']): Promise<string> {
  const tasks = (await docker.listTasks({ filters: { service: [name] } })) as TaskInfo[];
  const failed = tasks.filter((t) => ofSpec(t, spec) && t.Status?.State && ['failed', 'rejected', 'shutdown'].includes(t.Status.State) && (t.Status.Err || t.Status.Message));
  const words = [...new Set(failed.map((t) => t.Status!.Err || t.Status!.Message!))];
  return words.slice(0, 3).join('; ');
}

/**
 * Waits until Swarm has the service's update done: `completed`, or rolled back by Swarm (a new task failed),
 * or paused. Without an update status of its own (a new service, or one that had no task) it is done once
 * `replicas` tasks of the new spec run (and pass their check: a task is `running` only once healthy).
 */
export async function waitForRollout(
  docker: Docker,
  name: string,
  /** `previousUpdate`: the update status (its start) from before this change, which says nothing of it. */
  options: { previousUpdate: string | null; timeoutMs: number; intervalMs?: number; onProgress?: (line: string) => void },
): Promise<RolloutOutcome> {
  const end = Date.now() + options.timeoutMs;
  let said = '';
  const say = (line: string) => {
    if (line !== said) options.onProgress?.(line);
    said = line;
  };
  for (;;) {
    const service = await inspectService(docker, name);
    if (!service) return { outcome: 'failed', reason: 'the Swarm service is gone' };
    const fresh = service.UpdateStatus && service.UpdateStatus.StartedAt !== options.previousUpdate ? service.UpdateStatus : null;
    const state = fresh?.State;
    const message = fresh?.Message ?? '';
    if (state === 'rollback_completed') {
      // The spec is the previous one again: its rolled-back tasks are named by the spec Swarm left behind.
      const why = await taskFailures(docker, name, (service as ServiceInfo & { PreviousSpec?: ServiceInfo['Spec'] }).PreviousSpec ?? service.Spec).catch(() => '');
      return { outcome: 'rolled_back', reason: [message, why].filter(Boolean).join(': ') || 'Swarm rolled the update back' };
    }
    if (state === 'paused' || state === 'rollback_paused') return { outcome: 'failed', reason: message || `the update is ${state}` };
    const tasks = (await docker.listTasks({ filters: { service: [name], 'desired-state': ['running'] } })) as TaskInfo[];
    const running = tasks.filter((t) => t.Status?.State === 'running' && ofSpec(t, service.Spec)).length;
    const wanted = service.Spec.Mode.Replicated.Replicas;
    if (state === 'rollback_started') say(`Swarm is rolling the update back: ${message}`);
    else say(`${running} of ${wanted} task${wanted === 1 ? '' : 's'} of the new release running${state ? ` (update ${state})` : ''}`);
    // An update is done when Swarm says so. A new service has no update status, and neither has an update of a
    // service with no task (stopped on request): Swarm just starts the tasks, and it is done once they run.
    const done = fresh ? state === 'completed' && running >= wanted : running >= wanted;
    if (done) return { outcome: 'completed' };
    if (Date.now() > end) {
      const why = await taskFailures(docker, name, service.Spec).catch(() => '');
      return { outcome: 'failed', reason: `the update did not complete in ${Math.round(options.timeoutMs / 1000)} s (${running} of ${wanted} tasks running)${why ? `: ${why}` : ''}` };
    }
    await sleep(options.intervalMs ?? 500);
  }
}

/** Scales a Swarm service (a service stopped on request runs no task); a service that is gone has nothing to stop. */
export async function scaleService(docker: Docker, name: string, replicas: number): Promise<void> {
  await updateService(docker, name, (current) =>
    current.Spec.Mode.Replicated.Replicas === replicas ? null : { body: { ...current.Spec, Mode: { Replicated: { Replicas: replicas } } } },
  );
}

/** Removes a Swarm service and so its tasks on every node; one already gone is fine. */
export async function removeService(docker: Docker, name: string): Promise<void> {
  await docker
    .getService(name)
    .remove()
    .catch((error: unknown) => {
      if (statusOf(error) !== 404) throw error;
    });
}

/**
 * Removes a deleted project's overlay: the router leaves it first, and tasks of its removed services may take
 * a few seconds to let go of it. One already gone is fine.
 */
export async function removeOverlay(docker: Docker, name: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const network = (await docker
      .getNetwork(name)
      .inspect()
      .catch((error: unknown) => {
        if (statusOf(error) === 404) return null;
        throw error;
      })) as { Id: string; Containers?: Record<string, unknown> } | null;
    if (!network) return;
    for (const container of Object.keys(network.Containers ?? {})) {
      await docker
        .getNetwork(network.Id)
        .disconnect({ Container: container, Force: true })
        .catch(() => undefined);
    }
    try {
      await docker.getNetwork(network.Id).remove();
      return;
    } catch (error) {
      if (statusOf(error) === 404) return;
      if (Date.now() > end) throw error;
      await sleep(500);
    }
  }
}
