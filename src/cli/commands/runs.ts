import type { Command } from 'commander';
import { inProject, json, type CliContext } from './options.js';

const runs = () => import('../api/runs.js');

/** run: a one-off command in a container of the service's current release; runs: a service's runs. */
export function runCommands(program: Command, _cli: CliContext): void {
  program
    .command('run <service> [command...]')
    .usage('<project>/<service> [--timeout SECONDS] -- COMMAND [ARGS...]')
    .description(
      'run a one-off command in a container of the service’s current release (its image and variables), stream its output and exit with its exit code (124: timed out, 130: canceled). One word after -- runs with sh -c; several run as they are. Ctrl-C cancels it.',
    )
    .option('--timeout <seconds>', 'stop it past this many seconds (default 3600)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, command: string[], o) => {
      process.exitCode = await (await runs()).runCommand(service, command, o);
    });
  program
    .command('runs <service>')
    .description('the service’s runs (one-off commands and job runs), newest first')
    .option('--limit <n>', 'how many (default 50)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, o) => (await runs()).listRuns(service, o));
}
