import type Router from '@koa/router';
import { changeMailSettings, removeMailSettings } from '../../../commands/settings/mail-handlers.js';
import { findMailSettings, type MailSettingsRow } from '../../../projections/settings-mail-queries.js';
import { mailSettingsOf } from '../../integrations/mail/mail-settings.js';
import { probeMailServer } from '../../integrations/mail/mailer.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireInstallation, writerOf } from '../auth.js';
import { mailSettingsApi } from '../contract/mail-settings.js';
import { route } from '../contract/endpoint.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

const present = (row: MailSettingsRow) => ({
  host: row.host,
  port: row.port,
  tls: row.tls,
  username: row.username,
  passwordSet: row.password_set,
  from: row.from_address,
  changedAt: new Date(row.changed_at).toISOString(),
});

/** The installation's mail server: owners and all-project keys only, as the other installation settings. */
export function mailSettingsRoutes(router: Router, app: Slipway) {
  route(router, mailSettingsApi.get, async (ctx) => {
    requireInstallation(principalOf(ctx), 'reading the mail settings');
    const row = await findMailSettings(app.db);
    ctx.body = { mail: row ? present(row) : null };
  });

  route(router, mailSettingsApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the mail settings');
    const settings = mailSettingsOf(parseInput(mailSettingsApi.update.body, ctx.request.body ?? {}));
    // Saved only once the server greeted, took the login and, with TLS, showed a certificate for the host.
    let failure: string | null;
    try {
      failure = await probeMailServer(app.outbound, settings);
    } catch (error) {
      if (error instanceof ForbiddenDestinationError) throw error.at('host');
      throw error;
    }
    if (failure !== null) throw new HttpError(502, 'mail_server_failed', `the mail server did not take these settings: ${failure}`);
    const { position } = await changeMailSettings(requestContext(app, ctx, principal), settings);
    await app.settle(position);
    ctx.body = { mail: present((await findMailSettings(app.db))!) };
  });

  route(router, mailSettingsApi.remove, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing the mail settings');
    const { position } = await removeMailSettings(requestContext(app, ctx, principal));
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
