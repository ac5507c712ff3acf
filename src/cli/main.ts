#!/usr/bin/env -S node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1
import { Command, CommanderError, Option } from 'commander';
import type { AdminRequest } from './admin-commands.js';

// Modules load in the action that needs them: a command that talks to the API never loads the server.
const admin = async (request: AdminRequest) => (await import('./admin-run.js')).runAdmin(request);
const resources = () => import('./api/resources.js');

const json = () => new Option('--json', "print the API's answers as JSON (one object per line), for scripts");

const program = new Command('slipway')
  .description('Slipway: a self-hosted deployment platform. Talks to the server at SLIPWAY_URL with SLIPWAY_KEY (or what `slipway login` saved).')
  .option('--insecure', 'allow a plain http:// server on another machine (the API key then crosses the network in clear)')
  .showHelpAfterError()
  .exitOverride()
  .hook('preAction', async (command) => {
    if ((command.opts() as { insecure?: boolean }).insecure) (await import('./api/client.js')).allowInsecure();
  });

program
  .command('serve')
  .description('run the Slipway server (PGlite in SLIPWAY_DATA_DIR unless DATABASE_URL is set)')
  .action(async () => {
    const [{ loadConfig }, { createLogger }, { serve }] = await Promise.all([import('../config.js'), import('../logger.js'), import('./serve.js')]);
    const config = loadConfig();
    // A restart either takes the installation back or is refused while another process holds it.
    const server = await serve(config, createLogger(config.silent), { onLockLost: () => process.exit(1) });
    const shutdown = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', shutdown).once('SIGTERM', shutdown);
    return new Promise<never>(() => undefined);
  });

program
  .command('login')
  .description('check an API key against the server and save both for later commands (mode 0600)')
  .option('--url <url>', 'the server, e.g. https://slipway.example.com (default: SLIPWAY_URL, else http://localhost:3000)')
  .option('--key <key>', 'the API key (default: read from stdin, hidden on a terminal)')
  .action(async (o: { url?: string; key?: string }) => (await import('./api/login.js')).login(o));

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
  .description('delete a project with its services, their containers, volumes and secrets')
  .addOption(json())
  .action(async (project: string, o) => (await resources()).deleteProject(project, o));

program
  .command('services <project> [action] [name]')
  .description('list a project’s services (action omitted or `list`), or `create <name>` from an image, a hosted repository or a Git URL')
  .option('--image <image>', 'create: a container image, e.g. nginx:1.27')
  .option('--repo <owner/repo>', 'create: a repository on the Git host Slipway is set up with')
  .option('--git-url <url>', 'create: an http(s) Git URL')
  .option('--branch <branch>', 'create: the branch to build (default main)')
  .option('--port <port>', 'create: the port the app listens on')
  .addOption(new Option('--mode <mode>', 'create: how it runs').choices(['web', 'worker', 'static']))
  .addOption(json())
  .action(async (project: string, action: string | undefined, name: string | undefined, o) => {
    const r = await resources();
    if (action === undefined || action === 'list') return r.listServices(project, o);
    if (action !== 'create') throw new UsageError(`unknown action ${action}: use list or create`);
    if (!name) throw new UsageError('services <project> create needs the new service’s name');
    return r.createService(project, name, o);
  });

program
  .command('env <service> [action] [args...]')
  .description('a service’s variables: list (values hidden), `set KEY=VALUE …` or `unset KEY …`; <service> is an id, <project>/<service> or a unique name')
  .addOption(json())
  .action(async (service: string, action: string | undefined, args: string[], o) => {
    const r = await resources();
    if (action === undefined || action === 'list') return r.listEnv(service, o);
    if (action === 'set') return r.setEnv(service, args, o);
    if (action === 'unset') return r.unsetEnv(service, args, o);
    throw new UsageError(`unknown action ${action}: use list, set or unset`);
  });

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

program
  .command('deploy <service>')
  .description('deploy a service and follow its log until the deployment ends (exit code 0 only if it succeeded); Ctrl-C asks whether to abort it')
  .addOption(json())
  .action(async (service: string, o) => {
    process.exitCode = await (await import('./api/deploy.js')).deploy(service, o);
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
      process.exitCode = await (await import('./api/deploy.js')).control(action, service, o);
    });
}

program
  .command('releases <service>')
  .description('the service’s releases, newest first: which one runs, and which can still be rolled back to')
  .addOption(json())
  .action(async (service: string, o) => (await resources()).listReleases(service, o));

program
  .command('rollback [service]')
  .description('roll back to the release before the current one (or --to <version>) without a build, and follow it like a deployment; the service may be left out when the key sees only one')
  .option('--to <version>', 'the release to run, e.g. 3 or v3 (see the releases of the service)')
  .option('--config <which>', '"release" (default): the configuration that release ran with; "current": today’s variables and settings')
  .addOption(json())
  .action(async (service: string | undefined, o) => {
    process.exitCode = await (await import('./api/deploy.js')).rollback(service, o);
  });

program
  .command('logs <service>')
  .description('follow the output of the service’s running container')
  .addOption(json())
  .action(async (service: string, o) => {
    process.exitCode = await (await import('./api/deploy.js')).logs(service, o);
  });

program
  .command('history')
  .description('the audit history, oldest first: a table, or JSON Lines with --json')
  .option('--project <project>', 'only this project and its services')
  .option('--stream <stream>', 'only this stream, e.g. service-<id> or deployment-<id>')
  .option('--correlation <id>', 'only what one request caused (its X-Request-Id)')
  .option('--after <position>', 'start after this position')
  .option('--limit <n>', 'at most this many events', '100')
  .option('--all', 'every event (no limit)')
  .addOption(json())
  .action(async (o) => (await resources()).history(o));

const keys = program.command('keys').description('API keys, on this machine’s data directory (through the running server when there is one)');
keys
  .command('create')
  .description('create a key; its secret is printed once')
  .requiredOption('--name <name>', 'what it is for')
  .addOption(new Option('--access <access>', 'read or write').choices(['read', 'write']).makeOptionMandatory())
  .option('--project <id...>', 'scope it to these projects (default: every project)')
  .action((o: { name: string; access: 'read' | 'write'; project?: string[] }) => admin({ command: 'keys.create', name: o.name, access: o.access, projectIds: o.project ?? null }));
keys.command('list').description('every key, revoked ones too').action(() => admin({ command: 'keys.list' }));
keys.command('revoke <id>').description('revoke a key at once').action((id: string) => admin({ command: 'keys.revoke', id }));

const projections = program.command('projections').description('the read models, on this machine’s data directory');
projections
  .command('rebuild [projector...]')
  .description('rebuild read models from the log beside the live ones, then swap them in (all when none is named)')
  .action((names: string[]) => admin({ command: 'projections.rebuild', projectors: names }));
projections.command('status').description('lag of each read model and process manager, parked events, Docker and proxy').action(() => admin({ command: 'projections.status' }));
projections.command('parked').description('events a read model could not apply').action(() => admin({ command: 'projections.parked' }));
projections.command('retry <projector> <eventId>').description('apply a parked event again').action((projector: string, eventId: string) => admin({ command: 'projections.retry', projector, eventId }));
projections
  .command('skip <projector> <eventId>')
  .description('give up on a parked event for good (who and why are recorded)')
  .requiredOption('--reason <text>', 'why the read model goes on without it')
  .action((projector: string, eventId: string, o: { reason: string }) => admin({ command: 'projections.skip', projector, eventId, reason: o.reason }));

program
  .command('events')
  .description('the raw event log of this machine’s data directory as JSON Lines (no server or key needed)')
  .option('--stream <stream>', 'only this stream')
  .option('--correlation <id>', 'only what one request caused')
  .option('--after <position>', 'start after this position')
  .option('--limit <n>', 'at most this many events', '1000')
  .action((o: { stream?: string; correlation?: string; after?: string; limit: string }) =>
    admin({ command: 'events', stream: o.stream ?? null, correlationId: o.correlation ?? null, after: o.after ?? null, limit: Number(o.limit) }),
  );

class UsageError extends Error {}

program
  .parseAsync(process.argv)
  // Nothing is left to do (`serve` never gets here): open sockets kept alive, or a stdin that asked a
  // question, must not hold the process.
  .then(() => process.exit())
  .catch((error: unknown) => {
    if (error instanceof CommanderError) {
      // Commander has printed the help or the usage error itself.
      process.exit(error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version' ? 0 : 2);
    }
    process.stderr.write(`slipway: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
