import type { Command } from 'commander';
import { inProject, json, type CliContext } from './options.js';

const deployments = () => import('../api/deployments.js');

/** deployments: list, show, abort, explain. */
export function deploymentCommands(program: Command, _cli: CliContext): void {
  const deployment = program.command('deployments').description('a service’s deployments: list, show, abort, explain');
  deployment
    .command('list <service>', { isDefault: true })
    .description('the service’s deployments, newest first (also: slipway deployments SERVICE)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, o) => (await deployments()).listDeployments(service, o));
  deployment
    .command('show <id>')
    .description('one deployment: status, kind, times, reason and its last log lines')
    .option('--service <service>', 'its service (else every service the key sees is searched)')
    .option('--lines <n>', 'how many of its last log lines', '20')
    .addOption(json())
    .action(async (id: string, o) => (await deployments()).showDeployment(id, o));
  deployment
    .command('abort <id>')
    .description('abort a queued or running deployment')
    .option('--service <service>', 'its service (else every service the key sees is searched)')
    .addOption(json())
    .action(async (id: string, o) => (await deployments()).abortDeployment(id, o));
  deployment
    .command('explain <id>')
    .description('why a deployment failed and what to do: summary, likely cause, fix, commands')
    .option('--service <service>', 'its service (else every service the key sees is searched)')
    .option('--provider <provider>', 'builtin (default, needs no connection), openai or anthropic (connected in the settings)')
    .option('--model <model>', 'the provider’s model (default: its default)')
    .option('--refresh', 'ask again instead of showing the kept explanation')
    .addOption(json())
    .action(async (id: string, o) => (await deployments()).explainDeployment(id, o));
}
