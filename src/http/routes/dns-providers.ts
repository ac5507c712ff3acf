import type Router from '@koa/router';
import type { z } from 'zod';
import { connectDnsProvider, disconnectDnsProvider } from '../../../commands/settings/handlers.js';
import type { DnsProviderRow } from '../../../projections/settings-queries.js';
import { DnsProviderError, dnsFailureText } from '../../integrations/dns/provider.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { canonicalDnsProviderId, DNS_PROVIDERS, dnsCredentialsSchema, openDnsProvider, verifyDnsProvider, type DnsProviderId } from '../../integrations/dns/providers.js';
import type { Slipway } from '../../slipway.js';
import { requireInstallation, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { dnsProvidersApi, type dnsProvider } from '../contract/dns-providers.js';
import { route } from '../contract/endpoint.js';

/** `provider_a`, `provider_b` and `provider_c` (the spec's ids) name cloudflare, digitalocean and powerdns. */
export function dnsProviderIdOf(raw: string): DnsProviderId {
  const id = canonicalDnsProviderId(raw);
  if (!id) throw new HttpError(404, 'not_found', `DNS provider ${raw} not found: use one of ${Object.keys(DNS_PROVIDERS).join(', ')}`);
  return id;
}

/** Every provider Slipway can drive, connected or not; credentials are never shown, only what identifies them. */
export function presentDnsProviders(rows: readonly DnsProviderRow[]): z.infer<typeof dnsProvider>[] {
  return (Object.keys(DNS_PROVIDERS) as DnsProviderId[]).map((id) => {
    const row = rows.find((r) => r.provider_id === id);
    const base = { id, name: DNS_PROVIDERS[id].name };
    if (!row) return { ...base, connected: false, hasCredentials: false };
    return { ...base, connected: true, hasCredentials: true, ...row.visible, zones: row.zones, connectedAt: new Date(row.connected_at).toISOString() };
  });
}

export function dnsProviderRoutes(router: Router, app: Slipway) {
  route(router, dnsProvidersApi.connect, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const id = dnsProviderIdOf(ctx.params.providerId!);
    const credentials = parseInput(dnsCredentialsSchema(id), ctx.request.body ?? {});
    // Saved only once the provider listed its zones with these credentials.
    let zones: string[];
    try {
      zones = (await verifyDnsProvider(openDnsProvider(id, credentials, { ...app.config.integrations, outbound: app.outbound }))).map((z) => z.name);
    } catch (error) {
      if (error instanceof DnsProviderError) throw new HttpError(400, 'dns_provider_failed', dnsFailureText(DNS_PROVIDERS[id].name, 'refused the credentials', error));
      // PowerDNS' address is given here; the hosted providers' come from the environment.
      if (error instanceof ForbiddenDestinationError && id === 'powerdns') throw error.at('baseUrl');
      throw error;
    }
    const visible: Record<string, string> = id === 'powerdns' ? { baseUrl: credentials.baseUrl!, serverId: credentials.serverId! } : {};
    const { position } = await connectDnsProvider(requestContext(app, ctx, principal), { providerId: id, credentials, visible, zones });
    await app.settle(position);
    ctx.body = { ok: true, provider: { id, name: DNS_PROVIDERS[id].name, connected: true, ...visible, zones } };
  });

  route(router, dnsProvidersApi.disconnect, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const id = dnsProviderIdOf(ctx.params.providerId!);
    const { position } = await disconnectDnsProvider(requestContext(app, ctx, principal), id);
    await app.settle(position);
    ctx.body = { ok: true, provider: { id, name: DNS_PROVIDERS[id].name, connected: false } };
  });
}
