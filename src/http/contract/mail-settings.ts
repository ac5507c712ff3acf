import { z } from 'zod';
import { MAIL_TLS } from '../../../commands/settings/mail.js';
import { mailSettingsBody } from '../../integrations/mail/mail-settings.js';
import { okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

/** What is shown of the mail settings: never the password, only whether there is one. */
export const mailSettingsView = z
  .object({
    host: z.string(),
    port: z.number().int(),
    tls: z.enum(MAIL_TLS),
    username: z.string().nullable(),
    passwordSet: z.boolean(),
    from: z.string(),
    changedAt: timestamp,
  })
  .meta({ id: 'MailSettings' });

const path = '/api/settings/mail';

export const mailSettingsApi = {
  get: endpoint({
    method: 'get',
    path,
    operationId: 'getMailSettings',
    tag: 'Settings',
    summary: 'The installation’s mail server (invitations, sign-in alerts to the owners); null when none is set',
    access: 'read',
    allProjects: true,
    response: z.object({ mail: mailSettingsView.nullable() }),
  }),
  update: endpoint({
    method: 'put',
    path,
    operationId: 'setMailSettings',
    tag: 'Settings',
    summary: 'Set the mail server (owners); saved only once the server greeted Slipway and took the login',
    description:
      'A password needs `tls` `implicit` or `starttls` (400). The host must be a destination the outbound policy allows (400 `forbidden_destination`). A server that cannot be reached or refuses the login is 502 `mail_server_failed`, and nothing is saved.',
    access: 'write',
    allProjects: true,
    body: mailSettingsBody,
    response: z.object({ mail: mailSettingsView }),
    errors: [502],
  }),
  remove: endpoint({
    method: 'delete',
    path,
    operationId: 'removeMailSettings',
    tag: 'Settings',
    summary: 'Remove the mail server (owners): invitations are then shown only in the answer, alerts only logged',
    access: 'write',
    allProjects: true,
    response: okBody,
    errors: [404],
  }),
};
