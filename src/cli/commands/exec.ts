import type { Command } from 'commander';
import { inProject, type CliContext } from './options.js';

const exec = () => import('../api/exec.js');

/** exec: a terminal into a running service, or one command in it. */
export function execCommands(program: Command, _cli: CliContext): void {
  program
    .command('exec <service> [command...]')
    .description(
      'a terminal into the service’s running container (`slipway exec shop/web`), or one command in it without a terminal (`slipway exec shop/web -- ls /app`: its output here, its exit code as this command’s)',
    )
    .addOption(inProject())
    .option('-t, --tty', 'a terminal for the command too (default: only without a command, when this is a terminal)')
    .option('--task <id>', 'cluster mode: the task to run in (default: the first running one)')
    .action(async (service: string, command: string[], o) => {
      process.exitCode = await (await exec()).execInService(service, command, o);
    });
}
