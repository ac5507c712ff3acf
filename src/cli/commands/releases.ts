import type { Command } from 'commander';
import { formerName, inProject, json, type CliContext } from './options.js';

const runs = () => import('../api/deploy.js');

/** deploy, stop, start, restart, move, releases (with --timeline, formerly history), rollback, logs. */
export function releaseCommands(program: Command, _cli: CliContext): void {
  program
    .command('deploy <service>')
    .description('deploy a service and follow its log until the deployment ends (exit code 0 only if it succeeded); Ctrl-C asks whether to abort it')
    .addOption(json())
    .action(async (service: string, o) => {
      process.exitCode = await (await runs()).deploy(service, o);
    });

  for (const [action, description] of [
    ['stop', 'stop the service (its release is kept; its routes answer 503 until it is started)'],
    ['start', 'start a stopped service: its current release runs again, followed like a deployment'],
    ['restart', 'restart the current release (web services without downtime), followed like a deployment'],
  ] as const) {
    program
      .command(`${action} <service>`)
      .description(description)
      .addOption(json())
      .action(async (service: string, o) => {
        process.exitCode = await (await runs()).control(action, service, o);
      });
  }

  program
    .command('move <service> <nodeId>')
    .description('cluster mode: move a database service to another node (GET /api/cluster/nodes, slipway cluster nodes), its data with it, followed like a deployment')
    .addOption(json())
    .action(async (service: string, nodeId: string, o) => {
      process.exitCode = await (await runs()).move(service, nodeId, o);
    });

  const timeline = async (service: string, o: { project?: string; json?: boolean }) => (await import('../api/release-timeline.js')).releaseTimeline(service, o);
  program
    .command('releases <service>')
    .description('the service’s releases, newest first: which one runs, and which can still be rolled back to; --timeline adds each rollback, start, restart or config change that ran one again')
    .option('--timeline', 'each release and each deployment that ran a kept one (* marks the current release)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, o: { timeline?: boolean; project?: string; json?: boolean }) =>
      o.timeline ? timeline(service, o) : (await import('../api/resources.js')).listReleases(service, o),
    );
  formerName(program, 'history <service>', 'history', 'releases --timeline').addOption(inProject()).addOption(json()).action(timeline);

  program
    .command('rollback [service]')
    .description('roll back to the release before the current one (or --to <version>) without a build, and follow it like a deployment; the service may be left out when the key sees only one')
    .option('--to <version>', 'the release to run, e.g. 3 or v3 (see the releases of the service)')
    .option('--config <which>', '"release" (default): the configuration that release ran with; "current": today’s variables and settings')
    .addOption(json())
    .action(async (service: string | undefined, o) => {
      process.exitCode = await (await runs()).rollback(service, o);
    });

  program
    .command('logs <service>')
    .description('follow the output of the service’s running container')
    .addOption(json())
    .action(async (service: string, o) => {
      process.exitCode = await (await runs()).logs(service, o);
    });
}
