import { z } from 'zod';
import { hostname } from '../../shared/hostname.js';
import { id, nullableTimestamp, okWithProxy, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const domain = z
  .object({
    id,
    serviceId: id,
    hostname: z.string(),
    status: z.enum(['active']),
    createdAt: timestamp,
    updatedAt: timestamp,
    certificate: z
      .object({
        status: z.enum(['disabled', 'pending', 'active', 'failed']).meta({ description: '`disabled` when the installation serves HTTP only; `pending` until the proxy has reported on this hostname.' }),
        reason: z.string().nullable(),
        expiresAt: nullableTimestamp,
        issuer: z.string().nullable(),
      })
      .meta({ id: 'Certificate' }),
    dns: z
      .object({
        providerId: z.string(),
        recordType: z.enum(['A', 'AAAA']).nullable(),
        targetIp: z.string().nullable(),
        zone: z.string().nullable(),
        appliedAt: nullableTimestamp,
      })
      .nullable()
      .meta({ description: 'The address record Slipway last set through a DNS provider; null if none.' }),
  })
  .meta({ id: 'Domain' });

export const hostnameBody = z.object({ hostname });
export const dnsRecordBody = z.object({ providerId: z.string().min(1).max(64) }).strict();

const tag = 'Domains';

export const domainsApi = {
  add: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/domains',
    operationId: 'addDomain',
    tag,
    summary: 'Route a hostname to the service',
    description: 'The hostname must be free on this installation; the proxy is reloaded and its answer returned.',
    access: 'write',
    body: hostnameBody,
    response: okWithProxy,
  }),
  change: endpoint({
    method: 'patch',
    path: '/api/services/:serviceId/domains/:domainId',
    operationId: 'changeDomain',
    tag,
    summary: 'Change a domain’s hostname',
    access: 'write',
    body: hostnameBody,
    response: okWithProxy,
  }),
  remove: endpoint({
    method: 'delete',
    path: '/api/services/:serviceId/domains/:domainId',
    operationId: 'removeDomain',
    tag,
    summary: 'Stop routing a hostname to the service',
    access: 'write',
    response: okWithProxy,
  }),
  applyDnsRecord: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/domains/:domainId/dns-records',
    operationId: 'applyDnsRecord',
    tag,
    summary: 'Point the domain’s address record at this server through a connected DNS provider',
    access: 'write',
    body: dnsRecordBody,
    response: z.object({
      ok: z.literal(true),
      result: z.object({
        provider: z.string(),
        providerName: z.string(),
        action: z.enum(['created', 'updated', 'unchanged']),
        hostname: z.string(),
        recordType: z.enum(['A', 'AAAA']),
        host: z.string().meta({ description: 'The hostname relative to its zone, `@` for the apex.' }),
        zone: z.string(),
        targetIp: z.string(),
      }),
      domain,
    }),
    errors: [502],
  }),
};
