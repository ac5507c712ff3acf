import { randomBytes } from 'node:crypto';
import { project } from '../project/aggregate.js';
import { retireService, type RetirementDeps } from '../retirement.js';
import type { ReservationKind } from '../reservation/aggregate.js';
import { release, reserve } from '../reservation/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { streamOf } from '../shared/aggregate.js';
import { DomainError, conflict, notFound } from '../shared/domain-error.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { slugify } from '../shared/slug.js';
import { assertAcceptsDomains, live, service } from './aggregate.js';
import { initialDatabaseVariables } from './engines.js';
import type { CertificateState, DnsRecordApplied, Release, ServiceCreatedData } from './events.js';
import type { ServiceSettings } from './fields.js';
import type { HealthObservation } from './health.js';

export interface ServiceDeps {
  hostPortRange: readonly [number, number];
  /** Host ports the read side already knows to be taken, skipped without a round trip. */
  takenHostPorts(): Promise<Set<number>>;
  isHostPortFree(port: number): Promise<boolean>;
  /** The root domain in force now (the settings' or the environment's), or null. */
  rootDomain(): Promise<string | null>;
}

export type CreateServiceInput = Omit<ServiceCreatedData, 'projectId' | 'slug' | 'hostPort'> & {
  env: { key: string; value: string }[];
};

/** Reservations taken so far by one command, released again if the command fails. */
class Claims {
  private taken: [ReservationKind, string, string][] = [];
  position: string | null = null;
  constructor(private ctx: CommandContext) {}
  async claim(kind: ReservationKind, value: string, owner: string, describe: string) {
    const r = await reserve(this.ctx, kind, value, owner, describe);
    if (r.events.length > 0) this.taken.push([kind, value, owner]);
    this.position = latest(this.position, r.position);
  }
  async undo() {
    for (const [kind, value, owner] of this.taken.reverse()) await release(this.ctx, kind, value, owner).catch(() => undefined);
  }
}

const isConflict = (error: unknown) => error instanceof DomainError && error.code === 'conflict';
const nameKey = (projectId: string, slug: string) => `${projectId}:${slug}`;
const domainOwner = (serviceId: string, domainId: string) => `${serviceId}/${domainId}`;

async function claimHostPort(claims: Claims, deps: ServiceDeps, serviceId: string): Promise<number> {
  const taken = await deps.takenHostPorts();
  const [low, high] = deps.hostPortRange;
  for (let port = low; port <= high; port++) {
    if (taken.has(port) || !(await deps.isHostPortFree(port))) continue;
    try {
      await claims.claim('host-port', String(port), serviceId, `host port ${port}`);
      return port;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  throw conflict(`no free host port left in ${low}-${high}`);
}

async function claimPublicHostname(claims: Claims, deps: ServiceDeps, slug: string, serviceId: string) {
  const rootDomain = await deps.rootDomain();
  if (!rootDomain) return null;
  for (let n = 1; n <= 50; n++) {
    const hostname = `${n === 1 ? slug : `${slug}-${n}`}.${rootDomain}`;
    try {
      await claims.claim('hostname', hostname, serviceId, `hostname ${hostname}`);
      return hostname;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  throw conflict(`no free public hostname for ${slug}`);
}

async function encryptEnv(ctx: CommandContext, serviceId: string, env: { key: string; value: string }[]) {
  const withIds = env.map((variable) => ({ ...variable, envId: newId(ctx, 'env') }));
  return Promise.all(withIds.map(async ({ envId, key, value }) => ({ envId, key, value: await ctx.keyring.encrypt(serviceId, value) })));
}

/**
 * A retry (same idempotency key, so the same id) of a creation that got as far as creating the service:
 * it is done. Going through the claims again would pick another host port, as the first is now taken.
 */
async function earlierCreation(ctx: CommandContext, id: string) {
  if (!ctx.idempotencyKey) return null;
  const [last] = await ctx.store.readStream(streamOf(service.category, id), { direction: 'backwards', maxCount: 1 });
  return last ? { id, position: last.position } : null;
}

export async function createService(ctx: CommandContext, deps: ServiceDeps, projectId: string, input: CreateServiceInput) {
  const { state: owner } = await loadAggregate(ctx, project, projectId);
  if (owner.status !== 'live') throw notFound('project');
  const id = newId(ctx, 'service');
  const done = await earlierCreation(ctx, id);
  if (done) return done;
  const slug = slugify(input.name) || 'service';
  const claims = new Claims(ctx);
  try {
    await claims.claim('service-name', nameKey(projectId, slug), id, `a service named ${input.name} in this project`);
    const hostPort = await claimHostPort(claims, deps, id);
    let publicHostname = input.databasePublicHostname;
    if (input.kind === 'database') {
      if (publicHostname) await claims.claim('hostname', publicHostname, id, `hostname ${publicHostname}`);
      else publicHostname = await claimPublicHostname(claims, deps, slug, id);
    }
    const envInput =
      input.kind === 'database' && input.databaseEngine
        ? initialDatabaseVariables(input.databaseEngine, slug, input.env, () => randomBytes(18).toString('base64url'))
        : input.env;
    const { env: _env, ...fields } = input;
    const data: ServiceCreatedData = {
      ...fields,
      gitToken: input.gitToken === null ? null : await ctx.keyring.encrypt(id, input.gitToken),
      databasePublicHostname: publicHostname,
      projectId,
      slug,
      hostPort,
    };
    const env = await encryptEnv(ctx, id, envInput);
    const attached = await execute(ctx, project, projectId, (s) => project.decide.attach(s, id));
    const created = await execute(ctx, service, id, (s) => service.decide.create(s, data, env));
    return { id, position: latest(claims.position, attached.position, created.position) };
  } catch (error) {
    await claims.undo();
    await ctx.keyring.shred(id);
    throw error;
  }
}

export async function updateService(ctx: CommandContext, id: string, changes: Partial<ServiceSettings>) {
  const sealed = { ...changes };
  if (typeof changes.gitToken === 'string') sealed.gitToken = await ctx.keyring.encrypt(id, changes.gitToken);
  return execute(ctx, service, id, (s) => service.decide.update(s, sealed));
}

/**
 * Deletes the service, then retires it at once (commands/retirement.ts: releases what the reservations read
 * model says it holds, shreds its data key, detaches it from its project), so its name, port and hostnames
 * are free when this returns. A crash in between is completed by the retirement process manager; running
 * this again is safe too. `existed` is false for an id with no service.
 */
export async function deleteService(ctx: CommandContext, retirement: RetirementDeps, id: string) {
  const { state } = await loadAggregate(ctx, service, id);
  if (!state.service) return { position: null, existed: false };
  // Through execute even when already deleted: a retried request then derives the same event ids as before.
  const deleted = await execute(ctx, service, id, (s) => (s.status === 'live' ? service.decide.delete(s) : []));
  const retired = await retireService(ctx, retirement, id);
  return { position: latest(deleted.position, retired.position), existed: true };
}

export async function transferService(ctx: CommandContext, id: string, targetProjectId: string) {
  const { state } = await loadAggregate(ctx, service, id);
  const current = live(state);
  const { state: target } = await loadAggregate(ctx, project, targetProjectId);
  if (target.status !== 'live') throw notFound('target project');
  const claims = new Claims(ctx);
  try {
    await claims.claim('service-name', nameKey(targetProjectId, current.slug), id, `a service named ${current.name} in the target project`);
    const moved = await execute(ctx, service, id, (s) => service.decide.transfer(s, targetProjectId));
    const attached = await execute(ctx, project, targetProjectId, (s) => project.decide.attach(s, id));
    const detached = await execute(ctx, project, current.projectId, (s) => project.decide.detach(s, id));
    const released = await release(ctx, 'service-name', nameKey(current.projectId, current.slug), id);
    return { position: latest(claims.position, moved.position, attached.position, detached.position, released.position) };
  } catch (error) {
    await claims.undo();
    throw error;
  }
}

export async function setEnvVar(ctx: CommandContext, id: string, key: string, value: string) {
  const sealed = await ctx.keyring.encrypt(id, value);
  const envId = newId(ctx, 'env');
  return execute(ctx, service, id, (s) => service.decide.setEnv(s, { envId, key, value: sealed }));
}

export async function deleteEnvVar(ctx: CommandContext, id: string, envId: string) {
  return execute(ctx, service, id, (s) => service.decide.deleteEnv(s, envId));
}

export async function addDomain(ctx: CommandContext, id: string, hostname: string) {
  const { state } = await loadAggregate(ctx, service, id);
  assertAcceptsDomains(state);
  const domainId = newId(ctx, 'domain');
  const claims = new Claims(ctx);
  try {
    await claims.claim('hostname', hostname, domainOwner(id, domainId), `hostname ${hostname}`);
    const added = await execute(ctx, service, id, (s) => service.decide.addDomain(s, domainId, hostname));
    return { domainId, position: latest(claims.position, added.position) };
  } catch (error) {
    await claims.undo();
    throw error;
  }
}

export async function changeDomain(ctx: CommandContext, id: string, domainId: string, hostname: string) {
  const claims = new Claims(ctx);
  try {
    await claims.claim('hostname', hostname, domainOwner(id, domainId), `hostname ${hostname}`);
    const changed = await execute(ctx, service, id, (s) => service.decide.changeDomain(s, domainId, hostname));
    const previous = changed.events[0]?.type === 'DomainChanged' ? changed.events[0].data.previousHostname : null;
    const released = previous ? await release(ctx, 'hostname', previous, domainOwner(id, domainId)) : { position: null };
    return { position: latest(claims.position, changed.position, released.position) };
  } catch (error) {
    await claims.undo();
    throw error;
  }
}

export async function removeDomain(ctx: CommandContext, id: string, domainId: string) {
  const removed = await execute(ctx, service, id, (s) => service.decide.removeDomain(s, domainId));
  const hostname = removed.events[0]?.type === 'DomainRemoved' ? removed.events[0].data.hostname : null;
  const released = hostname ? await release(ctx, 'hostname', hostname, domainOwner(id, domainId)) : { position: null };
  return { position: latest(removed.position, released.position) };
}

export async function releaseService(ctx: CommandContext, id: string, next: Release, movedTo?: { nodeId: string | null }) {
  return execute(ctx, service, id, (s) => service.decide.release(s, next, movedTo));
}

export const stopService = (ctx: CommandContext, id: string) => execute(ctx, service, id, service.decide.stop);

export const recordDnsApplied = (ctx: CommandContext, id: string, applied: DnsRecordApplied) =>
  execute(ctx, service, id, (s) => service.decide.recordDnsApplied(s, applied));

export const recordCertificateChange = (ctx: CommandContext, id: string, domainId: string, hostname: string, certificate: CertificateState) =>
  execute(ctx, service, id, (s) => service.decide.certificateChange(s, domainId, hostname, certificate));

export const recordHealth = (ctx: CommandContext, id: string, observation: HealthObservation) =>
  execute(ctx, service, id, (s) => service.decide.health(s, observation));
