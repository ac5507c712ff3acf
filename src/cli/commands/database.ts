import type { Command } from 'commander';
import { UsageError } from '../api/usage-error.js';
import { inProject, json, yes, type CliContext } from './options.js';

const database = () => import('../api/database.js');

/** db: browse, query, back up, restore, connect. */
export function databaseCommands(program: Command, _cli: CliContext): void {
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
    .description('run the database engine’s own client (psql, mysql, redis-cli, mongosh) on it from this machine; arguments after -- go to the client')
    .option('--print', 'print the connection URL that works from this machine instead (contains the password)')
    .addOption(inProject())
    .addOption(json())
    .action(async (service: string, args: string[], o) => {
      process.exitCode = await (await import('../api/db-connect.js')).connect(service, args, o);
    });
}
