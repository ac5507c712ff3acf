import type { Command } from 'commander';
import { inProject, json, list, type CliContext } from './options.js';

const autoDeploy = () => import('../api/auto-deploy.js');

/** git-remote (and git's credential helper), auto-deploy and its webhook deliveries. */
export function gitCommands(program: Command, _cli: CliContext): void {
  program
    .command('git-remote <service>')
    .description('the service’s Git remote on Slipway (git push to it deploys the pushed commit); --add adds it to the repository here, with this CLI as its credential helper')
    .option('--add [name]', 'add the remote (default name: slipway) to the Git repository in the current directory')
    .addOption(inProject())
    .action(async (service: string, o) => {
      process.exitCode = await (await import('../api/git-remote.js')).gitRemote(service, o);
    });

  program
    .command('git-credential <operation>', { hidden: true })
    .description('git’s credential helper for Slipway remotes (set by git-remote --add)')
    .action(async (operation: string) => {
      process.exitCode = await (await import('../api/git-remote.js')).gitCredential(operation);
    });

  program
    .command('auto-deploy <service>')
    .description('show the service’s auto-deploy from a Git host’s webhook; with --provider (or other options) set it up or change it: the first setup prints the webhook URL and the secret once')
    .option('--provider <provider>', 'github, gitlab, gitea (also Forgejo), bitbucket or generic')
    .option('--branch <branch>', 'the branch whose pushes deploy (default: the service’s branch)')
    .option('--tags <glob>', 'pushed tags matching this glob deploy too, e.g. "v*"')
    .option('--watch <glob>', 'deploy only pushes touching a file matching this glob (repeatable)', list)
    .option('--ignore <glob>', 'pushes touching only files matching these globs deploy nothing (repeatable)', list)
    .option('--skip-keyword <text>', 'a head commit message containing it deploys nothing (repeatable; default [skip ci] [ci skip] [skip deploy])', list)
    .option('--disable', 'keep the settings but deploy nothing')
    .option('--rotate-secret', 'replace the secret and print the new one once')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, o) => (await autoDeploy()).autoDeploy(service, o));

  program
    .command('webhook-deliveries <service>')
    .description('the last 100 deliveries of the Git host’s webhook to the service’s auto-deploy, newest first, with what each did (deployed, skipped, rejected, duplicate)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, o) => (await autoDeploy()).webhookDeliveries(service, o));
}
