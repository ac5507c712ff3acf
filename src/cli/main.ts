#!/usr/bin/env -S node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1
import { Command, CommanderError, Option } from 'commander';
import type { AdminRequest } from './admin-commands.js';
import { UsageError } from './api/usage-error.js';

// Modules load in the action that needs them: a command that talks to the API never loads the server.
const admin = async (request: AdminRequest, o: { json?: boolean } = {}) =>
  (await import('./admin-run.js')).runAdmin(request, { ...o, ...(dataDirOption() ? { dataDir: dataDirOption()! } : {}) });
const resources = () => import('./api/resources.js');
const database = () => import('./api/database.js');
const deployments = () => import('./api/deployments.js');
const yes = () => new Option('-y, --yes', 'do it without asking (needed when there is no terminal to ask on)');
const inProject = () => new Option('--project <project>', 'the project of a service named by its name alone');

const json = () => new Option('--json', "print the API's answers as JSON (one object per line), for scripts");

const program = new Command('slipway')
  .description('Slipway: a self-hosted deployment platform. Talks to the server at SLIPWAY_URL with SLIPWAY_KEY (or what `slipway login` saved).')
  .option('--insecure', 'allow a plain http:// server on another machine (the API key then crosses the network in clear)')
  .option('--data-dir <dir>', 'the data directory of serve and the commands on this machine’s installation (default: SLIPWAY_DATA_DIR, else ./.slipway)')
  .showHelpAfterError()
  .exitOverride()
  .hook('preAction', async (command) => {
    if ((command.opts() as { insecure?: boolean }).insecure) (await import('./api/client.js')).allowInsecure();
  });

program
  .command('serve')
  .description('run the Slipway server (PGlite in the data directory unless DATABASE_URL is set); the only command that creates a data directory')
  .action(async () => {
    const [{ loadConfig }, { createLogger }, { serve }] = await Promise.all([import('../config.js'), import('../logger.js'), import('./serve.js')]);
    const config = loadConfig(dataDirOption() ? { ...process.env, SLIPWAY_DATA_DIR: dataDirOption()! } : process.env);
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
  .addOption(new Option('--engine <engine>', 'create: a database service of this engine').choices(['postgres', 'timeseries', 'mysql', 'redis', 'mongodb', 'columnar']))
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
  slipway services create NAME --project P (--image IMAGE | --repo OWNER/REPO | --git-url URL | --engine ENGINE) [--port N] [--mode web|worker|static] [--branch B]
  slipway services create db --project P --engine postgres --name main-db
  slipway services PROJECT create NAME …        (the same, project first)
  slipway services delete SERVICE [--project P] [--yes]`,
  )
  .action(async (args: string[], o) => (await import('./api/services.js')).servicesCommand(args, o));

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
  .command('move <service> <nodeId>')
  .description('cluster mode: move a database service to another node (GET /api/cluster/nodes, slipway cluster nodes), its data with it, followed like a deployment')
  .addOption(json())
  .action(async (service: string, nodeId: string, o) => {
    process.exitCode = await (await import('./api/deploy.js')).move(service, nodeId, o);
  });

program
  .command('git-remote <service>')
  .description('the service’s Git remote on Slipway (git push to it deploys the pushed commit); --add adds it to the repository here, with this CLI as its credential helper')
  .option('--add [name]', 'add the remote (default name: slipway) to the Git repository in the current directory')
  .addOption(inProject())
  .action(async (service: string, o) => {
    process.exitCode = await (await import('./api/git-remote.js')).gitRemote(service, o);
  });

program
  .command('git-credential <operation>', { hidden: true })
  .description('git’s credential helper for Slipway remotes (set by git-remote --add)')
  .action(async (operation: string) => {
    process.exitCode = await (await import('./api/git-remote.js')).gitCredential(operation);
  });

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

const list = (value: string, previous: string[] = []) => [...previous, value];

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
  .action(async (service: string, o) => (await import('./api/auto-deploy.js')).autoDeploy(service, o));

program
  .command('webhook-deliveries <service>')
  .description('the last 100 deliveries to the service’s webhook, newest first, with what each did (deployed, skipped, rejected, duplicate)')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => (await import('./api/auto-deploy.js')).webhookDeliveries(service, o));

program
  .command('history <service>')
  .description('the service’s release history, newest first: each release and each rollback, start, restart or config change (* marks the current release)')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => (await import('./api/history.js')).history(service, o));

program
  .command('events')
  .description('the audit log, oldest first: a table, or JSON Lines with --json (over the API; with --data-dir, the raw log of that data directory, no server or key needed)')
  .option('--project <project>', 'only this project and its services (API)')
  .option('--stream <stream>', 'only this stream, e.g. service-<id> or deployment-<id>')
  .option('--correlation <id>', 'only what one request caused (its X-Request-Id)')
  .option('--after <position>', 'start after this position')
  .option('--limit <n>', 'at most this many events', '100')
  .option('--all', 'every event (no limit; API)')
  .addOption(json())
  .action(async (o: { project?: string; stream?: string; correlation?: string; after?: string; limit: string; all?: boolean; json?: boolean }) => {
    if (!dataDirOption()) return (await resources()).events(o);
    return admin({ command: 'events', stream: o.stream ?? null, correlationId: o.correlation ?? null, after: o.after ?? null, limit: Number(o.limit) });
  });

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

const db = program.command('db').description('a database service: browse, query, back up, restore, connect (<service> is an id, <project>/<service>, or a name with --project)');
db.command('tables <service>')
  .description('its tables (collections, key groups) with their row counts')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => (await database()).tables(service, o));
db.command('rows <service>')
  .description('rows of one table')
  .option('--table <table>', 'the table, as db tables names it (e.g. public.items)')
  .option('--limit <n>', 'at most this many rows (default 50)')
  .option('--offset <n>', 'skip this many rows')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => (await database()).rows(service, o));
db.command('query <service> [sql]')
  .description('run one statement (SQL; a Redis command; a MongoDB command document) and print what it answered')
  .option('--file <file>', 'read the statement from a file (- for stdin)')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, sql: string | undefined, o) => (await database()).query(service, sql, o));
db.command('backups <service> [action] [id]')
  .description('its backups, newest first; `delete ID` deletes one (asks first)')
  .addOption(inProject())
  .addOption(yes())
  .addOption(json())
  .action(async (service: string, action: string | undefined, id: string | undefined, o) => {
    const d = await database();
    if (action === undefined || action === 'list') return d.backups(service, o);
    if (action === 'delete') return d.deleteBackup(service, id, o);
    throw new UsageError(`unknown action ${action}: use list or delete`);
  });
db.command('backup <service>')
  .description('take a backup now and wait until it has finished (exit 0 only if it succeeded)')
  .option('--storage <where>', 'disk, remote or disk+remote (default: the service’s backup setting)')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => {
    process.exitCode = await (await database()).backup(service, o);
  });
db.command('restore <service>')
  .description('replace the database’s data with a backup’s (asks first)')
  .option('--backup <id>', 'the backup (see db backups)')
  .addOption(inProject())
  .addOption(yes())
  .addOption(json())
  .action(async (service: string, o) => (await database()).restore(service, o));
db.command('imports <service>')
  .description('its imports from other databases, with their status')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, o) => (await database()).imports(service, o));
db.command('connect <service> [args...]')
  .description('run the engine’s own client (psql, mysql, redis-cli, mongosh) on it from this machine; arguments after -- go to the client')
  .option('--print', 'print the connection URL that works from this machine instead (contains the password)')
  .addOption(inProject())
  .addOption(json())
  .action(async (service: string, args: string[], o) => {
    process.exitCode = await (await import('./api/db-connect.js')).connect(service, args, o);
  });

const settings = program.command('settings').description('the installation’s settings: show, or set KEY=VALUE …');
settings
  .command('show', { isDefault: true })
  .description('each setting with its value and where it comes from (settings: set here; environment: the default)')
  .addOption(json())
  .action(async (o) => (await import('./api/settings.js')).showSettings(o));
settings
  .command('set <assignments...>')
  .description('change settings with the API’s names: values as JSON when they parse (true, 3, ["a"]), else text; KEY= goes back to the environment’s default')
  .addOption(json())
  .action(async (assignments: string[], o) => (await import('./api/settings.js')).setSettings(assignments, o));

const channels = () => import('./api/notification-channels.js');
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
notificationChannels.command('deliveries <id>').description('its last 100 notifications and their attempts').addOption(json()).action(async (id: string, o) => (await channels()).listNotificationDeliveries(id, o));

const clusterCli = () => import('./api/cluster.js');
const cluster = program.command('cluster').description('more than one server: the installation as a Docker Swarm manager');
cluster
  .command('init')
  .description('make this installation a Swarm manager, with a private registry every node pulls releases from')
  .option('--advertise-address <address>', 'where the other servers reach this one (needed when it has several addresses)')
  .addOption(json())
  .action(async (o) => (await clusterCli()).initCluster(o));
cluster
  .command('join-command')
  .description('the command that joins a new server (shown once)')
  .option('--manager', 'join it as a manager rather than a worker')
  .addOption(json())
  .action(async (o) => (await clusterCli()).joinCommand(o));
cluster.command('nodes').description('the servers, with their state and tasks').addOption(json()).action(async (o) => (await clusterCli()).listNodes(o));
cluster
  .command('node <id>')
  .description('pause or drain a server (its tasks move), make it active again, or set its labels')
  .addOption(new Option('--availability <availability>', 'active, pause or drain').choices(['active', 'pause', 'drain']))
  .option('--label <name=value...>', 'the node’s labels (they replace its labels); services choose nodes by them (nodeLabels)')
  .option('--clear-labels', 'remove every label')
  .addOption(json())
  .action(async (id: string, o) => (await clusterCli()).changeNode(id, o));
cluster.command('remove-node <id>').description('remove a drained server that has left the Swarm').addOption(json()).action(async (id: string, o) => (await clusterCli()).removeNode(id, o));

const keys = program.command('keys').description('API keys, on this machine’s installation (--data-dir or SLIPWAY_DATA_DIR; through the running server when there is one)');
keys
  .command('create')
  .description('create a key; its secret is printed once')
  .requiredOption('--name <name>', 'what it is for')
  .addOption(new Option('--access <access>', 'read or write').choices(['read', 'write']).makeOptionMandatory())
  .option('--project <id...>', 'scope it to these projects (default: every project)')
  .action((o: { name: string; access: 'read' | 'write'; project?: string[] }) => admin({ command: 'keys.create', name: o.name, access: o.access, projectIds: o.project ?? null }));
keys.command('list').description('every key, revoked ones too').action(() => admin({ command: 'keys.list' }));
keys.command('revoke <id>').description('revoke a key at once').action((id: string) => admin({ command: 'keys.revoke', id }));

const projections = program.command('projections').description('the read models, on this machine’s installation (--data-dir or SLIPWAY_DATA_DIR)');
projections
  .command('rebuild [projector...]')
  .description('rebuild read models from the log beside the live ones, then swap them in (all when none is named)')
  .action((names: string[]) => admin({ command: 'projections.rebuild', projectors: names }));
projections
  .command('status')
  .description('a table of each read model and process manager (lag, parked, state), then Docker and the proxy')
  .addOption(json())
  .action((o: { json?: boolean }) => admin({ command: 'projections.status' }, o));
projections.command('parked').description('events a read model could not apply').action(() => admin({ command: 'projections.parked' }));
projections.command('retry <projector> <eventId>').description('apply a parked event again').action((projector: string, eventId: string) => admin({ command: 'projections.retry', projector, eventId }));
projections
  .command('skip <projector> <eventId>')
  .description('give up on a parked event for good (who and why are recorded)')
  .requiredOption('--reason <text>', 'why the read model goes on without it')
  .action((projector: string, eventId: string, o: { reason: string }) => admin({ command: 'projections.skip', projector, eventId, reason: o.reason }));

function dataDirOption(): string | undefined {
  return (program.opts() as { dataDir?: string }).dataDir;
}

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
