import { Option, type Command } from 'commander';
import { json, type CliContext } from './options.js';

/** keys and projections: commands on this machine's installation. */
export function installationCommands(program: Command, cli: CliContext): void {
  const keys = program.command('keys').description('API keys, on this machine’s installation (--data-dir or SLIPWAY_DATA_DIR; through the running server when there is one)');
  keys
    .command('create')
    .description('create a key; its secret is printed once')
    .requiredOption('--name <name>', 'what it is for')
    .addOption(new Option('--access <access>', 'read or write').choices(['read', 'write']).makeOptionMandatory())
    .option('--project <id...>', 'scope it to these projects (default: every project)')
    .action((o: { name: string; access: 'read' | 'write'; project?: string[] }) => cli.admin({ command: 'keys.create', name: o.name, access: o.access, projectIds: o.project ?? null }));
  keys.command('list').description('every key, revoked ones too').action(() => cli.admin({ command: 'keys.list' }));
  keys.command('revoke <id>').description('revoke a key at once').action((id: string) => cli.admin({ command: 'keys.revoke', id }));

  const projections = program.command('projections').description('the read models, on this machine’s installation (--data-dir or SLIPWAY_DATA_DIR)');
  projections
    .command('rebuild [projector...]')
    .description('rebuild read models from the log beside the live ones, then swap them in (all when none is named)')
    .action((names: string[]) => cli.admin({ command: 'projections.rebuild', projectors: names }));
  projections
    .command('status')
    .description('a table of each read model and process manager (lag, parked, state), then Docker and the proxy')
    .addOption(json())
    .action((o: { json?: boolean }) => cli.admin({ command: 'projections.status' }, o));
  projections.command('parked').description('events a read model could not apply').action(() => cli.admin({ command: 'projections.parked' }));
  projections
    .command('retry <projector> <eventId>')
    .description('apply a parked event again')
    .action((projector: string, eventId: string) => cli.admin({ command: 'projections.retry', projector, eventId }));
  projections
    .command('skip <projector> <eventId>')
    .description('give up on a parked event for good (who and why are recorded)')
    .requiredOption('--reason <text>', 'why the read model goes on without it')
    .action((projector: string, eventId: string, o: { reason: string }) => cli.admin({ command: 'projections.skip', projector, eventId, reason: o.reason }));
}
