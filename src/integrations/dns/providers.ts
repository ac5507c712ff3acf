import { z } from 'zod';
import { baseUrl } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { cloudflareClient } from './cloudflare.js';
import { digitalOceanClient } from './digitalocean.js';
import { powerDnsClient } from './powerdns.js';
import { DnsProviderError, type DnsProviderClient, type DnsZone } from './provider.js';

export const DNS_PROVIDERS = {
  cloudflare: { name: 'Cloudflare' },
  digitalocean: { name: 'DigitalOcean' },
  powerdns: { name: 'PowerDNS' },
} as const;
export type DnsProviderId = keyof typeof DNS_PROVIDERS;

/** The spec's placeholder ids, in its order. */
const ALIASES: Readonly<Record<string, DnsProviderId>> = { provider_a: 'cloudflare', provider_b: 'digitalocean', provider_c: 'powerdns' };

export function canonicalDnsProviderId(id: string): DnsProviderId | null {
  if (Object.hasOwn(DNS_PROVIDERS, id)) return id as DnsProviderId;
  return Object.hasOwn(ALIASES, id) ? (ALIASES[id] ?? null) : null;
}

const tokenCredentials = z.strictObject({ apiToken: z.string().trim().min(1, 'must not be empty').max(512) });
const powerDnsCredentials = z.strictObject({
  baseUrl,
  apiKey: z.string().min(1, 'must not be empty').max(512),
  serverId: z
    .string()
    .trim()
    .regex(/^(?!\.\.?$)[A-Za-z0-9._-]{1,128}$/, 'must be a PowerDNS server id such as localhost')
    .default('localhost'),
});

const CREDENTIALS = { cloudflare: tokenCredentials, digitalocean: tokenCredentials, powerdns: powerDnsCredentials } as const;

/** The credentials as stored: every value a string. */
export type DnsCredentials = Record<string, string>;

/** The credential body each provider takes. */
export function dnsCredentialsSchema(id: DnsProviderId): z.ZodType<DnsCredentials> {
  return CREDENTIALS[id];
}

/** Where the hosted providers' APIs are (settable, so tests can use local servers that follow them), and the call timeout. */
export interface DnsEndpoints {
  cloudflareApiUrl?: string;
  digitaloceanApiUrl?: string;
  timeoutMs?: number;
  /** Where the providers' APIs may be reached. */
  outbound: DestinationPolicy;
}

function credentialsOf<T>(id: DnsProviderId, schema: z.ZodType<T>, credentials: unknown): T {
  const parsed = schema.safeParse(credentials);
  if (!parsed.success) throw new DnsProviderError(`the ${DNS_PROVIDERS[id].name} credentials are incomplete: ${parsed.error.issues.map((i) => i.path.join('.') || i.message).join(', ')}`, null);
  return parsed.data;
}

export function openDnsProvider(id: DnsProviderId, credentials: DnsCredentials, endpoints: DnsEndpoints): DnsProviderClient {
  const { timeoutMs, outbound } = endpoints;
  switch (id) {
    case 'cloudflare':
      return cloudflareClient(credentialsOf(id, tokenCredentials, credentials).apiToken, { apiUrl: endpoints.cloudflareApiUrl, timeoutMs, outbound });
    case 'digitalocean':
      return digitalOceanClient(credentialsOf(id, tokenCredentials, credentials).apiToken, { apiUrl: endpoints.digitaloceanApiUrl, timeoutMs, outbound });
    case 'powerdns':
      return powerDnsClient(credentialsOf(id, powerDnsCredentials, credentials), { timeoutMs, outbound });
  }
}

/** Credentials are good when the provider lists its zones with them. */
export const verifyDnsProvider = (client: DnsProviderClient): Promise<DnsZone[]> => client.listZones();
