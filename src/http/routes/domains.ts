import type Router from '@koa/router';
import { addDomain, changeDomain, recordDnsApplied, removeDomain } from '../../../commands/service/handlers.js';
import { dnsProviderCredentials } from '../../../commands/settings/handlers.js';
import { findDomain } from '../../../projections/service-queries.js';
import { applyDnsRecord, NoMatchingZoneError } from '../../integrations/dns/apply-record.js';
import { DnsProviderError, dnsFailureText } from '../../integrations/dns/provider.js';
import { canonicalDnsProviderId, DNS_PROVIDERS, openDnsProvider } from '../../integrations/dns/providers.js';
import { issuesCertificates } from '../../installation-settings.js';
import { presentDomain } from '../presenters.js';
import type { Slipway } from '../../slipway.js';
import type { ServiceScopeCache } from '../service-scope-cache.js';
import { isId, visibleServiceId, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { HttpError, notFoundHttp } from '../errors.js';
import { conflict } from '../../../commands/shared/domain-error.js';
import { route } from '../contract/endpoint.js';
import { dnsRecordBody, domainsApi, hostnameBody } from '../contract/domains.js';
import { parseInput } from '../validation.js';

/** The API's own domain belongs to the API: no service may route it. */
async function refuseApiDomain(app: Slipway, hostname: string) {
  if ((await app.settings()).apiDomain === hostname) throw conflict(`${hostname} is the API's own domain (the apiDomain setting)`);
}

export function domainRoutes(router: Router, app: Slipway, scopes: ServiceScopeCache) {
  route(router, domainsApi.add, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    const body = parseInput(hostnameBody, ctx.request.body);
    await refuseApiDomain(app, body.hostname);
    const { position } = await addDomain(requestContext(app, ctx, principal), serviceId, body.hostname);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  route(router, domainsApi.change, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.domainId!)) throw notFoundHttp('domain');
    const body = parseInput(hostnameBody, ctx.request.body);
    await refuseApiDomain(app, body.hostname);
    const { position } = await changeDomain(requestContext(app, ctx, principal), serviceId, ctx.params.domainId!, body.hostname);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  route(router, domainsApi.remove, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    if (!isId(ctx.params.domainId!)) throw notFoundHttp('domain');
    const { position } = await removeDomain(requestContext(app, ctx, principal), serviceId, ctx.params.domainId!);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  route(router, domainsApi.applyDnsRecord, async (ctx) => {
    const principal = writerOf(ctx);
    const serviceId = await visibleServiceId(scopes, principal, ctx.params.serviceId!);
    const { providerId } = parseInput(dnsRecordBody, ctx.request.body ?? {});
    const id = canonicalDnsProviderId(providerId);
    if (!id) throw new HttpError(400, 'validation_failed', `providerId must be one of ${Object.keys(DNS_PROVIDERS).join(', ')} (or provider_a, provider_b, provider_c)`, [{ path: 'providerId', message: 'unknown DNS provider' }]);
    const domain = isId(ctx.params.domainId!) ? await findDomain(app.db, serviceId, ctx.params.domainId!) : null;
    if (!domain) throw notFoundHttp('domain');
    const cmd = requestContext(app, ctx, principal);
    const credentials = await dnsProviderCredentials(cmd, id);
    const providerName = DNS_PROVIDERS[id].name;
    if (!credentials) throw new HttpError(409, 'dns_provider_not_connected', `${providerName} is not connected: connect it with PUT /api/settings/dns-providers/${id}`);
    const settings = await app.settings();
    let applied: Awaited<ReturnType<typeof applyDnsRecord>>;
    try {
      applied = await applyDnsRecord(openDnsProvider(id, credentials, { ...app.config.integrations, outbound: app.outbound }), domain.hostname, settings.publicIp);
    } catch (error) {
      if (error instanceof NoMatchingZoneError) {
        const looked = error.zones.length ? error.zones.join(', ') : 'none (the provider has no zones)';
        throw new HttpError(422, 'no_matching_zone', `no zone of ${providerName} contains ${domain.hostname}; zones looked at: ${looked}`);
      }
      if (error instanceof DnsProviderError) throw new HttpError(502, 'dns_provider_failed', dnsFailureText(providerName, 'refused the record', error));
      throw error;
    }
    const { position } = await recordDnsApplied(cmd, serviceId, { domainId: domain.id, providerId: id, providerName, ...applied });
    await app.settle(position);
    const updated = (await findDomain(app.db, serviceId, domain.id)) ?? domain;
    ctx.body = {
      ok: true,
      result: { provider: providerId, providerName, ...applied },
      domain: presentDomain(updated, issuesCertificates(app, settings)),
    };
  });
}
