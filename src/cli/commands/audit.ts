import type { Command } from 'commander';
import type { AuditLogOptions } from '../api/resources.js';
import { formerName, json, type CliContext } from './options.js';

/** audit (formerly events): the audit log over the API, or the raw log of a data directory. */
export function auditCommands(program: Command, cli: CliContext): void {
  const auditLog = async (o: AuditLogOptions) => {
    const dataDir = cli.dataDir();
    if (!dataDir) return (await import('../api/resources.js')).auditLog(o);
    return cli.admin({ command: 'events', stream: o.stream ?? null, correlationId: o.correlation ?? null, after: o.after ?? null, limit: Number(o.limit) });
  };
  const withOptions = (command: Command) =>
    command
      .option('--project <project>', 'only this project and its services (API)')
      .option('--stream <stream>', 'only this stream, e.g. service-<id> or deployment-<id>')
      .option('--correlation <id>', 'only what one request caused (its X-Request-Id)')
      .option('--after <position>', 'start after this position')
      .option('--limit <n>', 'at most this many events', '100')
      .option('--all', 'every event (no limit; API)')
      .addOption(json())
      .action(auditLog);
  withOptions(
    program
      .command('audit')
      .description('the audit log (GET /api/events), oldest first: a table, or JSON Lines with --json (over the API; with --data-dir, the raw log of that data directory, no server or key needed)'),
  );
  withOptions(formerName(program, 'events', 'events', 'audit'));
}
