import { Option, type Command } from 'commander';
import { formerName, json, type CliContext } from './options.js';

const channels = () => import('../api/notification-channels.js');

/** notification-channels (channels): list, create, delete, test, notifications (formerly deliveries). */
export function notificationCommands(program: Command, _cli: CliContext): void {
  const notificationChannels = program.command('notification-channels').alias('channels').description('where Slipway tells you what happened: webhooks, Slack, Discord, email');
  notificationChannels.command('list').description('every channel you may see, failing ones marked').addOption(json()).action(async (o) => (await channels()).listNotificationChannels(o));
  notificationChannels
    .command('create <name> <config...>')
    .description('create a channel; config as KEY=VALUE (webhook url=…; slack/discord webhookUrl=…; email host=… port=587 user=… password=… from=… to=["a@b.c"])')
    .addOption(new Option('--type <type>', 'webhook, slack, discord or email').choices(['webhook', 'slack', 'discord', 'email']).makeOptionMandatory())
    .option('--events <event...>', 'the events it hears of (default: every failure)')
    .option('--project <id...>', 'limit it to these projects (default: every project for an all-project key)')
    .addOption(json())
    .action(async (name: string, config: string[], o) => (await channels()).createNotificationChannel(name, config, o));
  notificationChannels.command('delete <id>').description('delete a channel').addOption(json()).action(async (id: string, o) => (await channels()).deleteNotificationChannel(id, o));
  notificationChannels
    .command('test <id>')
    .description('send a test notification now and say how it went (exit 1 when it was not delivered)')
    .option('--event <event>', 'the event it pretends to be')
    .addOption(json())
    .action(async (id: string, o) => (await channels()).testNotificationChannel(id, o));
  const notifications = async (id: string, o: { json?: boolean }) => (await channels()).listNotifications(id, o);
  notificationChannels.command('notifications <id>').description('its last 100 notifications and their delivery attempts').addOption(json()).action(notifications);
  formerName(notificationChannels, 'deliveries <id>', 'notification-channels deliveries', 'notification-channels notifications').addOption(json()).action(notifications);
}
