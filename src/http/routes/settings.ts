import type Router from '@koa/router';
import type { z } from 'zod';
import { changeGeneralSettings, connectRemoteStorage, disconnectRemoteStorage } from '../../../commands/settings/handlers.js';
import { findRemoteStorage, listAiProviders, listDnsProviders, type RemoteStorageRow } from '../../../projections/settings-queries.js';
import { openRemoteStorage, RemoteStorageError } from '../../integrations/remote-storage.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { vetRegistry } from '../../outbound/image-registry.js';
import { IMAGE_SETTING_NAMES } from '../../installation-images.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireInstallation, writerOf } from '../auth.js';
import type { Principal } from '../principals.js';
import { HttpError } from '../errors.js';
import { conflict, invalid } from '../../../commands/shared/domain-error.js';
import { isDomainUsed } from '../../../projections/service-queries.js';
import { findUser } from '../../../projections/people-queries.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { settingsApi, type settings } from '../contract/settings.js';
import { presentAiProviders } from './ai-providers.js';
import { presentDnsProviders } from './dns-providers.js';

type RemoteStorageAnswer = z.infer<typeof settings>['remoteStorage'];

function presentRemoteStorage(remote: RemoteStorageRow | null, everything: boolean): RemoteStorageAnswer {
  if (!remote) return { connected: false };
  if (!everything) return { connected: true };
  return {
    connected: true,
    endpoint: remote.endpoint,
    region: remote.region,
    bucket: remote.bucket,
    accessKeyId: remote.access_key_id,
    secretAccessKeySet: true,
    prefix: remote.prefix,
    forcePathStyle: remote.force_path_style,
    connectedAt: new Date(remote.connected_at).toISOString(),
  };
}

/**
 * Where the installation's outside services are (storage endpoint and bucket, AI and PowerDNS addresses) and
 * which inner destinations are open is for all-project keys: a key scoped to some projects learns only
 * whether each service is connected.
 */
async function presentSettings(app: Slipway, principal: Principal): Promise<z.infer<typeof settings>> {
  const [general, remote, dnsProviders, aiProviders] = await Promise.all([app.settings(), findRemoteStorage(app.db), listDnsProviders(app.db), listAiProviders(app.db)]);
  const { source, allowedDestinations, ...values } = general;
  const everything = principal.projectIds === null;
  return {
    ...values,
    ...(everything ? { allowedDestinations } : {}),
    sources: source,
    proxy: { mode: app.config.proxy.mode, httpPort: app.config.proxy.httpPort, httpsPort: app.config.proxy.httpsPort },
    dnsProviders: presentDnsProviders(dnsProviders).map((p) => (everything || !p.connected ? p : { ...p, baseUrl: undefined, serverId: undefined })),
    aiProviders: presentAiProviders(aiProviders).map((p) => (everything ? p : { id: p.id, name: p.name, connected: p.connected })),
    remoteStorage: presentRemoteStorage(remote, everything),
    backups: { hourUtc: app.config.backups.hourUtc },
  };
}

/** The installation's settings: any key reads them (never a secret); only all-project write keys change them. */
export function settingsRoutes(router: Router, app: Slipway) {
  route(router, settingsApi.get, async (ctx) => {
    ctx.body = { settings: await presentSettings(app, principalOf(ctx)) };
  });

  route(router, settingsApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const change = parseInput(settingsApi.update.body, ctx.request.body ?? {});
    if (change.apiDomain && (await isDomainUsed(app.db, change.apiDomain))) throw conflict(`${change.apiDomain} is a service's domain: remove it there first`);
    // Requiring what the person asking has not turned on would lock them out with their next request.
    if (change.requireTwoFactor && principal.userId && !(await findUser(app.db, principal.userId))?.two_factor) {
      throw invalid('requireTwoFactor', 'turn on your own two factors first (POST /api/users/me/totp)');
    }
    // The engine pulls these images when a deployment needs them: their registries are destinations like a service's image.
    for (const name of IMAGE_SETTING_NAMES) {
      const reference = change[name];
      if (reference) await vetRegistry(app.outbound, reference, name);
    }
    const { position } = await changeGeneralSettings(requestContext(app, ctx, principal), change);
    await app.settle(position);
    // HTTPS and the ACME account are part of Caddy's configuration.
    const proxy = position ? await app.proxy.sync(position) : { ok: true, detail: 'nothing changed' };
    ctx.body = { ok: true, settings: await presentSettings(app, principal), proxy };
  });

  route(router, settingsApi.connectRemoteStorage, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const config = parseInput(settingsApi.connectRemoteStorage.body, ctx.request.body ?? {});
    // Saved only once a probe object was written, read back and deleted with it.
    const storage = await openRemoteStorage(config, app.outbound);
    try {
      await storage.probe();
    } catch (error) {
      if (error instanceof RemoteStorageError) throw new HttpError(400, 'remote_storage_failed', `the remote storage refused the probe: ${error.message}`);
      if (error instanceof ForbiddenDestinationError) throw error.at('endpoint');
      throw error;
    } finally {
      storage.close();
    }
    const { position } = await connectRemoteStorage(requestContext(app, ctx, principal), config);
    await app.settle(position);
    ctx.body = { ok: true, remote: { connected: true } };
  });

  route(router, settingsApi.disconnectRemoteStorage, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the installation settings');
    const { position } = await disconnectRemoteStorage(requestContext(app, ctx, principal));
    await app.settle(position);
    ctx.body = { ok: true, remote: { connected: false } };
  });
}
