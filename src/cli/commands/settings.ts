import type { Command } from 'commander';
import { json, type CliContext } from './options.js';

const settingsApi = () => import('../api/settings.js');

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
}
