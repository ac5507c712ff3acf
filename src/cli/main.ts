#!/usr/bin/env -S node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1
import { Command, CommanderError } from 'commander';
import { UsageError } from './api/usage-error.js';
import { auditCommands } from './commands/audit.js';
import { clusterCommands } from './commands/cluster.js';
import { databaseCommands } from './commands/database.js';
import { deploymentCommands } from './commands/deployments.js';
import { gitCommands } from './commands/git.js';
import { installationCommands } from './commands/installation.js';
import { jobCommands } from './commands/jobs.js';
import { notificationCommands } from './commands/notifications.js';
import { peopleCommands } from './commands/people.js';
import type { CliContext } from './commands/options.js';
import { projectCommands } from './commands/projects.js';
import { releaseCommands } from './commands/releases.js';
import { runCommands } from './commands/runs.js';
import { serverCommands } from './commands/server.js';
import { settingsCommands } from './commands/settings.js';

// One file per command group (./commands/); each loads its modules in the action that needs them, so a command
// that talks to the API never loads the server.
const program = new Command('slipway')
  .description('Slipway: a self-hosted deployment platform. Talks to the server at SLIPWAY_URL with SLIPWAY_KEY (or what `slipway login` saved).')
  .option('--insecure', 'allow a plain http:// server on another machine (the API key then crosses the network in clear)')
  .option('--data-dir <dir>', 'the data directory of serve and the commands on this machine’s installation (default: SLIPWAY_DATA_DIR, else ./.slipway)')
  .showHelpAfterError()
  .exitOverride()
  .hook('preAction', async (command) => {
    if ((command.opts() as { insecure?: boolean }).insecure) (await import('./api/client.js')).allowInsecure();
  });

const dataDir = () => (program.opts() as { dataDir?: string }).dataDir;
const cli: CliContext = {
  dataDir,
  async admin(request, o = {}) {
    const dir = dataDir();
    await (await import('./admin-run.js')).runAdmin(request, { ...o, ...(dir ? { dataDir: dir } : {}) });
  },
};

for (const group of [
  serverCommands,
  projectCommands,
  releaseCommands,
  runCommands,
  gitCommands,
  auditCommands,
  deploymentCommands,
  databaseCommands,
  jobCommands,
  settingsCommands,
  notificationCommands,
  peopleCommands,
  clusterCommands,
  installationCommands,
]) {
  group(program, cli);
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
