import { Option, type Command } from 'commander';
import { UsageError } from '../api/usage-error.js';
import { formerName, json, yes, type CliContext } from './options.js';

const resources = () => import('../api/resources.js');

/** projects, services, variables (formerly env), domains. */
export function projectCommands(program: Command, _cli: CliContext): void {
  const projects = program.command('projects').description('list, create and delete projects');
  projects
    .command('list', { isDefault: true })
    .description('the projects the key can see')
    .addOption(json())
    .action(async (o) => (await resources()).listProjects(o));
  projects
    .command('create <name>')
    .description('create a project')
    .option('--description <text>', 'what it is for')
    .addOption(json())
    .action(async (name: string, o) => (await resources()).createProject(name, o));
  projects
    .command('delete <project>')
    .description('delete a project with its services, their containers, volumes and secrets; asks first (--yes without a terminal)')
    .addOption(yes())
    .addOption(json())
    .action(async (project: string, o) => (await resources()).deleteProject(project, o));

  program
    .command('services [args...]')
    .description('list, create and delete services: `services PROJECT`, `services create NAME --project P …`, `services delete SERVICE`')
    .option('--project <project>', 'the project (create, list; delete by name)')
    .option('--name <name>', 'create: the new service’s name (instead of NAME)')
    .option('--image <image>', 'create: a container image, e.g. nginx:1.27')
    .option('--repo <owner/repo>', 'create: a repository on the Git host Slipway is set up with')
    .option('--git-url <url>', 'create: an http(s) Git URL')
    .option('--push', 'create: no upstream; it deploys what you git push to it (see `slipway git-remote --add`)')
    .addOption(new Option('--engine <engine>', 'create: a database service of this database engine').choices(['postgres', 'timeseries', 'mysql', 'redis', 'mongodb', 'columnar']))
    .option('--public', 'create --engine: publish the database beyond this machine (databasePublicEnabled)')
    .option('--branch <branch>', 'create: the branch to build (default main)')
    .option('--port <port>', 'create: the port the app listens on (a database: its engine’s port)')
    .addOption(new Option('--mode <mode>', 'create: how it runs (default web)').choices(['web', 'worker', 'static']))
    .option('--replicas <n>', 'create, cluster mode: how many tasks run (default 1)')
    .option('--node <id>', 'create --engine, cluster mode: the node the database and its volume go on (default: the manager)')
    .addOption(yes())
    .addOption(json())
    .addHelpText(
      'after',
      `
Forms:
  slipway services PROJECT [list]
  slipway services create NAME --project P (--image IMAGE | --repo OWNER/REPO | --git-url URL | --push | --engine ENGINE) [--port N] [--mode web|worker|static] [--branch B]
  slipway services create db --project P --engine postgres --name main-db
  slipway services PROJECT create NAME …        (the same, project first)
  slipway services delete SERVICE [--project P] [--yes]`,
    )
    .action(async (args: string[], o) => (await import('../api/services.js')).servicesCommand(args, o));

  const variables = async (service: string, action: string | undefined, args: string[], o: { json?: boolean }) => {
    const r = await resources();
    if (action === undefined || action === 'list') return r.listVariables(service, o);
    if (action === 'set') return r.setVariables(service, args, o);
    if (action === 'unset') return r.unsetVariables(service, args, o);
    throw new UsageError(`unknown action ${action}: use list, set or unset`);
  };
  program
    .command('variables <service> [action] [args...]')
    .description('a service’s variables: list (values hidden), `set KEY=VALUE …` or `unset KEY …`; <service> is an id, <project>/<service> or a unique name')
    .addOption(json())
    .action(variables);
  formerName(program, 'env <service> [action] [args...]', 'env', 'variables').addOption(json()).action(variables);

  program
    .command('domains <service> [action] [hostname]')
    .description('a service’s domains: list, `add <hostname>` or `remove <hostname>`')
    .addOption(json())
    .action(async (service: string, action: string | undefined, hostname: string | undefined, o) => {
      const r = await resources();
      if (action === undefined || action === 'list') return r.listDomains(service, o);
      if (!hostname) throw new UsageError(`domains <service> ${action} needs the hostname`);
      if (action === 'add') return r.addDomain(service, hostname, o);
      if (action === 'remove') return r.removeDomain(service, hostname, o);
      throw new UsageError(`unknown action ${action}: use list, add or remove`);
    });
}
