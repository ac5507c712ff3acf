import type Router from '@koa/router';
import { z } from 'zod';
import { isIP } from 'node:net';
import { changeGeneralSettings, connectRemoteStorage, disconnectRemoteStorage } from '../../../commands/settings/handlers.js';
import { findRemoteStorage, listAiProviders, listDnsProviders } from '../../../projections/settings-queries.js';
import { openRemoteStorage, RemoteStorageError } from '../../integrations/remote-storage.js';
import type { Slipway } from '../../slipway.js';
import { requireAllProjects, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { hostname, parseInput, text } from '../validation.js';
import { presentAiProviders } from './ai-providers.js';
import { presentDnsProviders } from './dns-providers.js';

const remoteStorageBody = z
  .object({
    endpoint: z.string().url().refine((u) => /^https?:\/\//.test(u), 'must be an http or https URL').max(2048),
    region: text(64).trim().min(1, 'must not be empty'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3-63 lowercase letters, digits, dots and hyphens'),
    accessKeyId: text(256).trim().min(1, 'must not be empty'),
    secretAccessKey: z.string().min(1, 'must not be empty').max(1024),
    prefix: text(512)
      .regex(/^[^\\]*$/, 'must not contain backslashes')
      .transform((p) => p.replace(/^\/+|\/+$/g, ''))
      .default(''),
    forcePathStyle: z.boolean().default(false),
  })
  .strict();

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** Each general setting; null puts back the environment's default. */
const generalSettingsBody = z
  .object({
    rootDomain: nullable(hostname),
    publicIp: nullable(z.string().refine((ip) => isIP(ip) !== 0, 'must be an IPv4 or IPv6 address')),
    acmeEmail: nullable(z.string().email().max(254)),
    acmeDirectoryUrl: nullable(z.string().url().refine((u) => u.startsWith('https://'), 'must be an https URL (ACME requires TLS)').max(2048)),
    httpsEnabled: nullable(z.boolean()),
  })
  .strict()
  .refine((body) => Object.values(body).some((v) => v !== undefined), 'give at least one setting to change');

async function presentSettings(app: Slipway) {
  const [general, remote, dnsProviders, aiProviders] = await Promise.all([app.settings(), findRemoteStorage(app.db), listDnsProviders(app.db), listAiProviders(app.db)]);
  const { source, ...values } = general;
  return {
    ...values,
    sources: source,
    proxy: { mode: app.config.proxy.mode, httpPort: app.config.proxy.httpPort, httpsPort: app.config.proxy.httpsPort },
    dnsProviders: presentDnsProviders(dnsProviders),
    aiProviders: presentAiProviders(aiProviders),
    remoteStorage: remote
      ? {
          connected: true,
          endpoint: remote.endpoint,
          region: remote.region,
          bucket: remote.bucket,
          accessKeyId: remote.access_key_id,
          secretAccessKeySet: true,
          prefix: remote.prefix,
          forcePathStyle: remote.force_path_style,
          connectedAt: new Date(remote.connected_at).toISOString(),
        }
      : { connected: false },
    backups: { hourUtc: app.config.backups.hourUtc },
  };
}

/** The installation's settings: any key reads them (never a secret); only all-project write keys change them. */
export function settingsRoutes(router: Router, app: Slipway) {
  router.get('/api/settings', async (ctx) => {
    ctx.body = { settings: await presentSettings(app) };
  });

  router.patch('/api/settings', async (ctx) => {
    const principal = writerOf(ctx);
    requireAllProjects(principal, 'changing the installation settings');
    const change = parseInput(generalSettingsBody, ctx.request.body ?? {});
    const { position } = await changeGeneralSettings(requestContext(app, ctx, principal), change);
    await app.settle(position);
    // HTTPS and the ACME account are part of Caddy's configuration.
    const proxy = position ? await app.proxy.sync(position) : { ok: true, detail: 'nothing changed' };
    ctx.body = { ok: true, settings: await presentSettings(app), proxy };
  });

  router.put('/api/settings/remote-storage', async (ctx) => {
    const principal = writerOf(ctx);
    requireAllProjects(principal, 'changing the installation settings');
    const config = parseInput(remoteStorageBody, ctx.request.body ?? {});
    // Saved only once a probe object was written, read back and deleted with it.
    const storage = await openRemoteStorage(config);
    try {
      await storage.probe();
    } catch (error) {
      if (error instanceof RemoteStorageError) throw new HttpError(400, 'remote_storage_failed', `the remote storage refused the probe: ${error.message}`);
      throw error;
    } finally {
      storage.close();
    }
    const { position } = await connectRemoteStorage(requestContext(app, ctx, principal), config);
    await app.settle(position);
    ctx.body = { ok: true, remote: { connected: true } };
  });

  router.delete('/api/settings/remote-storage', async (ctx) => {
    const principal = writerOf(ctx);
    requireAllProjects(principal, 'changing the installation settings');
    const { position } = await disconnectRemoteStorage(requestContext(app, ctx, principal));
    await app.settle(position);
    ctx.body = { ok: true, remote: { connected: false } };
  });
}
