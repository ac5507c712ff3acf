import { openedMailSettings } from '../../../commands/settings/mail-handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { settingsMailer, type Mailer } from './mailer.js';

/** The installation's mailer: its mail settings as the log holds them now, the password opened only to send. */
export function installationMail(app: { outbound: DestinationPolicy; commandContext(actor: string): CommandContext }): Mailer {
  return settingsMailer(app.outbound, () => openedMailSettings(app.commandContext('system:mail')));
}
