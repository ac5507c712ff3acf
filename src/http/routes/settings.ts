import type Router from '@koa/router';
import { z } from 'zod';
import { connectRemoteStorage, disconnectRemoteStorage } from '../../../commands/settings/handlers.js';
import { findRemoteStorage } from '../../../projections/settings-queries.js';
import { openRemoteStorage, RemoteStorageError } from '../../integrations/remote-storage.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireAllProjects, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput, text } from '../validation.js';

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

/** The installation's settings; only all-project keys see them and only all-project write keys change them. */
export function settingsRoutes(router: Router, app: Slipway) {
  router.get('/api/settings', async (ctx) => {
    requireAllProjects(principalOf(ctx), 'reading the installation settings');
    const remote = await findRemoteStorage(app.db);
    ctx.body = {
      settings: {
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
      },
    };
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
