import type { Command } from 'commander';
import { json, type CliContext } from './options.js';

const settingsApi = () => import('../api/settings.js');
const mailApi = () => import('../api/mail-settings.js');

/** settings: show, set. */
export function settingsCommands(program: Command, _cli: CliContext): void {
  const settings = program.command('settings').description('the installation’s settings: show, or set KEY=VALUE …');
  settings
    .command('show', { isDefault: true })
    .description('each setting with its value and where it comes from (settings: set here; environment: the default)')
    .addOption(json())
    .action(async (o) => (await settingsApi()).showSettings(o));
  settings
    .command('set <assignments...>')
    .description('change settings with the API’s names: values as JSON when they parse (true, 3, ["a"]), else text; KEY= goes back to the environment’s default')
    .addOption(json())
    .action(async (assignments: string[], o) => (await settingsApi()).setSettings(assignments, o));
  const mail = settings.command('mail').description('the mail server invitations and sign-in alerts go through (owners)');
  mail.command('show', { isDefault: true }).description('the mail server, never its password').addOption(json()).action(async (o) => (await mailApi()).showMailSettings(o));
  mail
    .command('set')
    .description('set the mail server; saved only once it greeted Slipway and took the login')
    .requiredOption('--host <host>', 'the SMTP server')
    .requiredOption('--port <port>', 'its port (465 for implicit TLS, 587 for STARTTLS)')
    .requiredOption('--tls <mode>', 'implicit, starttls or none (a password needs TLS)')
    .requiredOption('--from <address>', 'the sender address')
    .option('--username <name>', 'the login')
    .option('--password', 'read the password from stdin (hidden on a terminal)')
    .addOption(json())
    .action(async (o) => (await mailApi()).setMailSettings(o));
  mail.command('remove').description('remove the mail server').addOption(json()).action(async (o) => (await mailApi()).removeMailSettings(o));
}
