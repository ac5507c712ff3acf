import type { Command } from 'commander';
import type { CliContext } from './options.js';

/** serve, login. */
export function serverCommands(program: Command, cli: CliContext): void {
  program
    .command('serve')
    .description('run the Slipway server (PGlite in the data directory unless DATABASE_URL is set); the only command that creates a data directory')
    .action(async () => {
      const [{ loadConfig }, { createLogger }, { serve }] = await Promise.all([import('../../config.js'), import('../../logger.js'), import('../serve.js')]);
      const dataDir = cli.dataDir();
      const config = loadConfig(dataDir ? { ...process.env, SLIPWAY_DATA_DIR: dataDir } : process.env);
      // A person (Ctrl-C) or the service manager stopping Slipway stops its Caddy too, unless told to keep it.
      // Heard from the start: a signal while the server is still starting stops it once it has started.
      let stop: (() => void) | null = null;
      let stopAsked = false;
      const shutdown = () => (stop ? stop() : (stopAsked = true));
      process.once('SIGINT', shutdown).once('SIGTERM', shutdown);
      // A restart either takes the installation back or is refused while another process holds it.
      const server = await serve(config, createLogger(config.silent), { onLockLost: () => process.exit(1) });
      stop = () => void server.close({ stopProxy: !config.proxy.keepOnStop }).then(() => process.exit(0));
      if (stopAsked) stop();
      return new Promise<never>(() => undefined);
    });

  program
    .command('login')
    .description('check an API key against the server and save both for later commands (mode 0600); with --email, sign in as a person and save a personal key of theirs')
    .option('--url <url>', 'the server, e.g. https://slipway.example.com (default: SLIPWAY_URL, else http://localhost:3000)')
    .option('--key <key>', 'the API key (default: read from stdin, hidden on a terminal)')
    .option('--email <email>', 'sign in as this person (the password is read from stdin, hidden on a terminal) and save a new personal key named after this machine')
    .action(async (o: { url?: string; key?: string; email?: string }) => (await import('../api/login.js')).login(o));
}
