import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { serviceIdentity, serviceSettings } from './fields.js';

const release = z.object({
  deploymentId: z.string().nullable(),
  containerName: z.string().nullable(),
  /** Loopback port the container's internal port is published on; null for workers. */
  upstreamPort: z.number().int().nullable(),
  buildMethod: z.enum(['dockerfile', 'packbuilder']).nullable(),
});
export type Release = z.infer<typeof release>;

/** One probe's outcome, e.g. `{ ok: false, detail: "HTTP 500 from /health" }`. */
const probeResult = z.object({ ok: z.boolean(), detail: z.string() });
export type ProbeResult = z.infer<typeof probeResult>;

export const serviceEvents = {
  ServiceCreated: serviceIdentity.extend(serviceSettings.shape),
  ServiceUpdated: z.object({ changes: serviceSettings.partial() }),
  ServiceTransferred: z.object({ fromProjectId: z.string(), toProjectId: z.string() }),
  ServiceDeleted: z.object({ projectId: z.string() }),
  /** After a deletion: everything the service held is released, its data key shredded, it left its project. */
  ServiceRetired: z.object({ projectId: z.string() }),
  EnvVarSet: z.object({ envId: z.string(), key: z.string(), value: z.string() }),
  EnvVarDeleted: z.object({ envId: z.string(), key: z.string() }),
  DomainAdded: z.object({ domainId: z.string(), hostname: z.string() }),
  DomainChanged: z.object({ domainId: z.string(), hostname: z.string(), previousHostname: z.string() }),
  DomainRemoved: z.object({ domainId: z.string(), hostname: z.string() }),
  /** An address record for the domain, created or checked at a DNS provider. */
  DomainDnsRecordApplied: z.object({
    domainId: z.string(),
    providerId: z.string(),
    providerName: z.string(),
    action: z.enum(['created', 'updated', 'unchanged']),
    hostname: z.string(),
    recordType: z.enum(['A', 'AAAA']),
    host: z.string(),
    zone: z.string(),
    targetIp: z.string(),
  }),
  /** What Caddy's certificate storage and log say of the domain's certificate, recorded when it changes. */
  DomainCertificateChanged: z.object({
    domainId: z.string(),
    hostname: z.string(),
    status: z.enum(['pending', 'active', 'failed']),
    reason: z.string().nullable(),
    notAfter: z.string().nullable(),
    issuer: z.string().nullable(),
  }),
  /** The route now leads to this deployment's container; `null` fields: nothing runs (a release undone). */
  ServiceReleased: release,
  /** A database service's container and data now live on this node (null: the manager's engine): recorded with the release a move made. */
  ServiceMoved: z.object({ nodeId: z.string().nullable(), deploymentId: z.string() }),
  /** The running release was stopped on request: its container is kept, its routes answer 503 until the next release. */
  ServiceStopped: z.object({ deploymentId: z.string(), containerName: z.string().nullable() }),
  /** The current release failed its check `retries` times in a row, or its container went down (`crashed`). */
  ServiceBecameUnhealthy: z.object({
    deploymentId: z.string(),
    detail: z.string(),
    probe: probeResult.nullable(),
    restarts: z.number().int(),
    crashed: z.boolean(),
  }),
  /** The current release runs and passes its check again. */
  ServiceRecovered: z.object({ deploymentId: z.string(), detail: z.string(), probe: probeResult.nullable(), restarts: z.number().int() }),
};
export type ServiceEvent = EventsOf<typeof serviceEvents>;
export type ServiceCreatedData = z.infer<(typeof serviceEvents)['ServiceCreated']>;
export const parseServiceEvent = eventParser(serviceEvents);
export type DnsRecordApplied = z.infer<(typeof serviceEvents)['DomainDnsRecordApplied']>;
export type CertificateState = Omit<z.infer<(typeof serviceEvents)['DomainCertificateChanged']>, 'domainId' | 'hostname'>;
