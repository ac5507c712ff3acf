import { isDeepStrictEqual } from 'node:util';
import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, invalid, notFound } from '../shared/domain-error.js';
import { parseServiceEvent, type CertificateState, type DnsRecordApplied, type Release, type ServiceCreatedData, type ServiceEvent } from './events.js';
import type { ServiceSettings } from './fields.js';
import { refusedHealthCheck, type StoredHealthCheck } from './health-check.js';
import { healthChange, type HealthObservation, type RecordedHealth } from './health.js';

export type { RecordedHealth };

export interface ServiceState {
  status: 'none' | 'live' | 'deleted';
  /** Deleted, and everything it held given back (reservations, data key, its place in the project). */
  retired: boolean;
  service: ServiceCreatedData | null;
  env: ReadonlyMap<string, { envId: string; value: string }>;
  domains: ReadonlyMap<string, string>;
  release: Release | null;
  /** Stopped on request; the next release (a start, a deploy) runs it again. */
  stopped: boolean;
  /** The current release's health as last recorded; healthy when it takes the route (its gate passed). */
  health: RecordedHealth | null;
}

const evolution: Evolution<ServiceState, ServiceEvent> = {
  category: 'service',
  initial: { status: 'none', retired: false, service: null, env: new Map(), domains: new Map(), release: null, stopped: false, health: null },
  evolve(state, event) {
    const with_ = <K extends keyof ServiceState>(key: K, value: ServiceState[K]) => ({ ...state, [key]: value });
    switch (event.type) {
      case 'ServiceCreated':
        return { ...state, status: 'live', service: event.data };
      case 'ServiceUpdated': {
        const { dockerImage } = event.data.changes;
        const moved = dockerImage ? { repoFullName: `image:${dockerImage}` } : {};
        return with_('service', { ...state.service!, ...event.data.changes, ...moved });
      }
      case 'ServiceTransferred':
        return with_('service', { ...state.service!, projectId: event.data.toProjectId });
      case 'ServiceDeleted':
        return { ...state, status: 'deleted' };
      case 'ServiceRetired':
        return { ...state, retired: true };
      case 'EnvVarSet':
        return with_('env', new Map(state.env).set(event.data.key, { envId: event.data.envId, value: event.data.value }));
      case 'EnvVarDeleted': {
        const env = new Map(state.env);
        env.delete(event.data.key);
        return with_('env', env);
      }
      case 'DomainAdded':
      case 'DomainChanged':
        return with_('domains', new Map(state.domains).set(event.data.domainId, event.data.hostname));
      case 'DomainRemoved': {
        const domains = new Map(state.domains);
        domains.delete(event.data.domainId);
        return with_('domains', domains);
      }
      case 'ServiceReleased': {
        const { deploymentId } = event.data;
        if (deploymentId === null) return { ...state, release: null, health: null, stopped: false };
        const health: RecordedHealth = { deploymentId, status: 'healthy', crashed: false, restarts: 0 };
        return { ...state, release: event.data, stopped: false, health: state.health?.deploymentId === deploymentId ? state.health : health };
      }
      case 'ServiceStopped':
        return with_('stopped', true);
      case 'ServiceMoved':
        return with_('service', { ...state.service!, nodeId: event.data.nodeId });
      case 'ServiceBecameUnhealthy': {
        const { deploymentId, crashed, restarts } = event.data;
        return with_('health', { deploymentId, status: 'unhealthy', crashed, restarts });
      }
      case 'ServiceRecovered':
        return with_('health', { deploymentId: event.data.deploymentId, status: 'healthy', crashed: false, restarts: event.data.restarts });
      case 'DomainDnsRecordApplied':
      case 'DomainCertificateChanged':
        return state;
    }
  },
  parse: parseServiceEvent,
};

export function live(state: ServiceState): ServiceCreatedData {
  if (state.status !== 'live' || !state.service) throw notFound('service');
  return state.service;
}

export interface EnvInput {
  envId: string;
  key: string;
  /** Already encrypted. */
  value: string;
}

function assertHealthCheckFits(kind: string, check: StoredHealthCheck | undefined) {
  const refused = check === undefined ? null : refusedHealthCheck(kind, check);
  if (refused) throw invalid('healthCheck', refused);
}

function decideCreate(state: ServiceState, data: ServiceCreatedData, env: EnvInput[]): ServiceEvent[] {
  if (state.status !== 'none') throw conflict('service already exists');
  assertHealthCheckFits(data.kind, data.healthCheck);
  return [
    { type: 'ServiceCreated', data },
    ...env.map((e): ServiceEvent => ({ type: 'EnvVarSet', data: { envId: e.envId, key: e.key, value: e.value } })),
  ];
}

/** A setting as it stands; a service from before resource limits has none of its own. */
const settingOf = (current: ServiceCreatedData, key: keyof ServiceSettings) => (key === 'resources' ? (current.resources ?? {}) : current[key]);

function decideUpdate(state: ServiceState, changes: Partial<ServiceSettings>): ServiceEvent[] {
  const current = live(state);
  const changed = Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => key === 'gitToken' || !isDeepStrictEqual(settingOf(current, key as keyof ServiceSettings), value)),
  ) as Partial<ServiceSettings>;
  assertHealthCheckFits(current.kind, changed.healthCheck);
  if (changed.runtimeMode === 'worker' && state.domains.size > 0) {
    throw conflict('a service with custom domains cannot become a worker; remove its domains first');
  }
  if (current.kind === 'database' && changed.runtimeMode !== undefined) {
    throw invalid('runtimeMode', 'the runtime mode of a database service cannot change');
  }
  if (changed.dockerImage !== undefined && (current.kind !== 'image' || changed.dockerImage === null)) {
    throw invalid('dockerImage', current.kind === 'image' ? 'an image service needs an image' : `a ${current.kind} service runs no dockerImage`);
  }
  if (current.kind === 'database' && changed.replicas !== undefined && changed.replicas > 1) {
    throw invalid('replicas', 'a database runs one task: its volume lives on one node');
  }
  if (current.kind === 'database' && changed.releaseCommand) {
    throw invalid('releaseCommand', 'a database service runs no release command');
  }
  if (current.kind === 'database' && changed.internalPort !== undefined) {
    throw invalid('internalPort', `a ${current.databaseEngine} service listens on its engine's port`);
  }
  return Object.keys(changed).length ? [{ type: 'ServiceUpdated', data: { changes: changed } }] : [];
}

function decideTransfer(state: ServiceState, toProjectId: string): ServiceEvent[] {
  const current = live(state);
  if (current.projectId === toProjectId) throw invalid('targetProjectId', 'the service is already in that project');
  return [{ type: 'ServiceTransferred', data: { fromProjectId: current.projectId, toProjectId } }];
}

function decideDelete(state: ServiceState): ServiceEvent[] {
  return [{ type: 'ServiceDeleted', data: { projectId: live(state).projectId } }];
}

/** Retirement follows the deletion, once; retiring a retired service says nothing. */
function decideRetire(state: ServiceState): ServiceEvent[] {
  if (state.status === 'none' || !state.service) throw notFound('service');
  if (state.status === 'live') throw conflict('a live service cannot be retired; delete it first');
  if (state.retired) return [];
  return [{ type: 'ServiceRetired', data: { projectId: state.service.projectId } }];
}

function decideSetEnv(state: ServiceState, input: EnvInput): ServiceEvent[] {
  live(state);
  const envId = state.env.get(input.key)?.envId ?? input.envId;
  return [{ type: 'EnvVarSet', data: { envId, key: input.key, value: input.value } }];
}

function decideDeleteEnv(state: ServiceState, envId: string): ServiceEvent[] {
  live(state);
  const entry = [...state.env].find(([, v]) => v.envId === envId);
  if (!entry) throw notFound('environment variable');
  return [{ type: 'EnvVarDeleted', data: { envId, key: entry[0] } }];
}

export function assertAcceptsDomains(state: ServiceState): void {
  const current = live(state);
  if (current.runtimeMode === 'worker') throw invalid('hostname', 'workers do not accept custom domains');
  if (current.kind === 'database') {
    throw invalid('hostname', 'database services take databasePublicHostname, not custom domains');
  }
}

function decideAddDomain(state: ServiceState, domainId: string, hostname: string): ServiceEvent[] {
  assertAcceptsDomains(state);
  if ([...state.domains.values()].includes(hostname)) throw conflict(`${hostname} is already a domain of this service`);
  return [{ type: 'DomainAdded', data: { domainId, hostname } }];
}

function domainOf(state: ServiceState, domainId: string): string {
  live(state);
  const hostname = state.domains.get(domainId);
  if (hostname === undefined) throw notFound('domain');
  return hostname;
}

function decideChangeDomain(state: ServiceState, domainId: string, hostname: string): ServiceEvent[] {
  const previousHostname = domainOf(state, domainId);
  if (previousHostname === hostname) return [];
  return [{ type: 'DomainChanged', data: { domainId, hostname, previousHostname } }];
}

function decideRemoveDomain(state: ServiceState, domainId: string): ServiceEvent[] {
  return [{ type: 'DomainRemoved', data: { domainId, hostname: domainOf(state, domainId) } }];
}

/** The record was applied for the domain's hostname as it is now; a rename meanwhile makes it stale. */
function decideRecordDnsApplied(state: ServiceState, applied: DnsRecordApplied): ServiceEvent[] {
  const hostname = domainOf(state, applied.domainId);
  if (hostname !== applied.hostname) throw conflict(`the domain was renamed to ${hostname} while its record was applied; apply it again`);
  return [{ type: 'DomainDnsRecordApplied', data: applied }];
}

/** A certificate report for a hostname the domain no longer has, or of a removed domain, is dropped. */
function decideCertificateChange(state: ServiceState, domainId: string, hostname: string, certificate: CertificateState): ServiceEvent[] {
  if (state.status !== 'live' || state.domains.get(domainId) !== hostname) return [];
  return [{ type: 'DomainCertificateChanged', data: { domainId, hostname, ...certificate } }];
}

/** Routes the service to a deployment's container; a deleted service takes no release. */
function decideRelease(state: ServiceState, release: Release, movedTo?: { nodeId: string | null }): ServiceEvent[] {
  if (state.status !== 'live') return [];
  // A move's release and the node it is on are one fact: never one recorded without the other.
  if (movedTo && release.deploymentId) {
    return [{ type: 'ServiceReleased', data: release }, { type: 'ServiceMoved', data: { nodeId: movedTo.nodeId, deploymentId: release.deploymentId } }];
  }
  // A stopped service started again on the same container is a release all the same: it ends the stop.
  if (!state.stopped && state.release?.deploymentId === release.deploymentId && state.release?.upstreamPort === release.upstreamPort) return [];
  return [{ type: 'ServiceReleased', data: release }];
}

/** What a move of the service to `nodeId` needs: a running database release on another node. */
export function assertMovable(state: ServiceState, nodeId: string | null): void {
  const current = live(state);
  if (current.kind !== 'database') throw conflict('only a database service moves: Swarm places the tasks of the others (nodeLabels)');
  if ((current.nodeId ?? null) === nodeId) throw conflict('the service is on that node already');
  if (!state.release?.deploymentId) throw conflict('the service has no running release to move; deploy it first');
  if (state.stopped) throw conflict('the service is stopped: start it first, its data is copied from the running database');
}

/** Stops the running release; its container and image stay, so a start needs no build. */
function decideStop(state: ServiceState): ServiceEvent[] {
  live(state);
  if (state.stopped) throw conflict('the service is already stopped');
  if (!state.release?.deploymentId) throw conflict('the service has no running release to stop; deploy it first');
  return [{ type: 'ServiceStopped', data: { deploymentId: state.release.deploymentId, containerName: state.release.containerName } }];
}

/**
 * A change of the current release's health, or nothing: an unchanged state appends nothing, and a look at
 * a container that is no longer current (a newer release, none) is dropped. A restart counted since the
 * last record is a crash even when the container is back up by the time of the look.
 */
function decideHealth(state: ServiceState, o: HealthObservation): ServiceEvent[] {
  return state.status === 'live' ? healthChange(state.health, o) : [];
}

export const NO_RELEASE: Release = { deploymentId: null, containerName: null, upstreamPort: null, buildMethod: null };

/** The service aggregate and its command vocabulary. */
export const service = defineAggregate(evolution, {
  create: decideCreate,
  update: decideUpdate,
  transfer: decideTransfer,
  delete: decideDelete,
  retire: decideRetire,
  setEnv: decideSetEnv,
  deleteEnv: decideDeleteEnv,
  addDomain: decideAddDomain,
  changeDomain: decideChangeDomain,
  removeDomain: decideRemoveDomain,
  recordDnsApplied: decideRecordDnsApplied,
  certificateChange: decideCertificateChange,
  release: decideRelease,
  stop: decideStop,
  health: decideHealth,
});
