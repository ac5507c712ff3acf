import { z } from 'zod';
import { DNS_PROVIDERS, dnsCredentialsSchema, type DnsProviderId } from '../../integrations/dns/providers.js';
import { timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const dnsProviderId = z.enum(Object.keys(DNS_PROVIDERS) as [DnsProviderId, ...DnsProviderId[]]);

const identity = { id: dnsProviderId, name: z.string() };

/** What is shown of a connection: never the credentials; PowerDNS's address and server id, and the zones found. */
const connection = {
  baseUrl: z.string().optional().meta({ description: 'PowerDNS only.' }),
  serverId: z.string().optional().meta({ description: 'PowerDNS only.' }),
  zones: z.array(z.string()).meta({ description: 'The zones the provider listed when it was connected.' }),
};

/** One provider of GET /api/settings. */
export const dnsProvider = z
  .discriminatedUnion('connected', [
    z.object({ ...identity, connected: z.literal(false), hasCredentials: z.literal(false) }),
    z.object({ ...identity, connected: z.literal(true), hasCredentials: z.literal(true), ...connection, connectedAt: timestamp }),
  ])
  .meta({ id: 'DnsProvider' });

const path = '/api/settings/dns-providers/:providerId';
const description = `\`providerId\` is one of ${Object.keys(DNS_PROVIDERS).join(', ')}, or \`provider_a\`, \`provider_b\`, \`provider_c\` for them in that order.`;

export const dnsProvidersApi = {
  connect: endpoint({
    method: 'put',
    path,
    operationId: 'connectDnsProvider',
    tag: 'Settings',
    summary: 'Connect a DNS provider (or replace its credentials); saved only once the provider listed its zones with them',
    description,
    access: 'write',
    allProjects: true,
    /** The route parses the body with the one of these its provider takes. */
    body: z
      .union([dnsCredentialsSchema('cloudflare'), dnsCredentialsSchema('powerdns')])
      .meta({ description: 'Cloudflare and DigitalOcean take `{ apiToken }`; PowerDNS takes `{ baseUrl, apiKey, serverId }`.' }),
    response: z.object({ ok: z.literal(true), provider: z.object({ ...identity, connected: z.literal(true), ...connection }) }),
  }),
  disconnect: endpoint({
    method: 'delete',
    path,
    operationId: 'disconnectDnsProvider',
    tag: 'Settings',
    summary: 'Disconnect a DNS provider',
    description,
    access: 'write',
    allProjects: true,
    response: z.object({ ok: z.literal(true), provider: z.object({ ...identity, connected: z.literal(false) }) }),
  }),
};
