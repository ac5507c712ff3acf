import { parseImportEvent } from '../../commands/import/events.js';
import { parseServiceEvent } from '../../commands/service/events.js';
import { importSteps, loadImport } from '../../commands/import/handlers.js';
import type { Engine } from '../../commands/service/fields.js';
import { listRunningImports } from '../../projections/import-queries.js';
import { findService, runningDatabasePortBySlug, type ServiceRow } from '../../projections/service-queries.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import { endpointOf } from '../engines/engine-plans.js';
import { redactSource } from '../engines/import-sources.js';
import { importPostgres } from '../engines/postgres-import.js';
import { copyRedis } from '../engines/redis-import.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../logger.js';
import { LABEL } from '../runtime/container-runtime.js';
import { resolvedVariablesOf } from '../variables/project-variables.js';
import { backupTargetOf, type BackupDeps } from './backup-runner.js';
import { message, networkOf } from './deployment-run.js';
import type { Reactor } from './reactor.js';
import { RunSet } from './run-set.js';

export interface ImportDeps extends BackupDeps {
  images: Record<Engine, string>;
}

/** A Redis source that names another service of the project is reached on that service's published port. */
async function reachable(deps: ImportDeps, target: ServiceRow, sourceUrl: string): Promise<string> {
  const url = new URL(sourceUrl);
  const port = await runningDatabasePortBySlug(deps.db, target.project_id, url.hostname);
  if (port === null) return sourceUrl;
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

async function runImport(deps: ImportDeps, id: string, signal: AbortSignal): Promise<void> {
  if ((await importSteps.start(deps.cmd, id)).events.length === 0) return;
  const request = await loadImport(deps.cmd, id);
  if (!request?.sourceUrl) return void (await importSteps.fail(deps.cmd, id, 'the source URL can no longer be read'));
  const cut = AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutMs)]);
  try {
    // Refuses a service that is gone or not running, with a reason.
    await backupTargetOf(deps, request.serviceId);
    const row = await findService(deps.db, request.serviceId);
    const engine = row!.database_engine as Engine;
    const env = await resolvedVariablesOf(deps.db, deps.keyring, row!);
    if (request.source === 'postgres-url') {
      const user = env.POSTGRES_USER || 'postgres';
      const target = new URL('postgresql://placeholder');
      target.hostname = row!.slug;
      target.port = '5432';
      target.username = user;
      target.password = env.POSTGRES_PASSWORD ?? '';
      target.pathname = `/${env.POSTGRES_DB || user}`;
      await importPostgres(
        deps.runtime,
        {
          name: `slipway-import-${id}`,
          image: deps.images[engine],
          network: networkOf(row!.project_id),
          labels: { [LABEL.project]: row!.project_id, [LABEL.service]: row!.id },
          sourceUrl: request.sourceUrl,
          targetUrl: target.toString(),
        },
        cut,
      );
    } else {
      const endpoint = endpointOf(engine, env, row!.host_port, null);
      await copyRedis(await reachable(deps, row!, request.sourceUrl), { host: endpoint.host, port: endpoint.port, password: endpoint.password }, cut);
    }
    await importSteps.succeed(deps.cmd, id);
  } catch (error) {
    const reason = signal.aborted ? String(signal.reason) : cut.aborted ? `the import ran longer than ${deps.timeoutMs / 1000} s` : message(error);
    await importSteps.fail(deps.cmd, id, redactSource(reason, request.sourceUrl));
  }
}

/** The process manager that runs imports, with the same discipline as backups (see BackupRunner). */
export class ImportRunner implements Reactor {
  readonly name = 'import-runner';
  private readonly runs: RunSet;

  constructor(
    private readonly deps: ImportDeps,
    log: Logger,
  ) {
    this.runs = new RunSet((id, error) => log.error('import run failed', { import: id, error: message(error) }));
  }

  async handle(batch: readonly RecordedEvent[]) {
    for (const recorded of batch) {
      const event = parseImportEvent(recorded);
      if (event?.type === 'ImportRequested') this.launch(aggregateIdOf(recorded.streamId), event.data.serviceId);
      if (!event && parseServiceEvent(recorded)?.type === 'ServiceDeleted') this.runs.abortService(aggregateIdOf(recorded.streamId), 'the service was deleted');
    }
  }

  async reconcile() {
    if (this.runs.stopped) return;
    for (const row of await listRunningImports(this.deps.db)) {
      if (this.runs.has(row.id)) continue;
      if (row.run_started) {
        await importSteps.fail(this.deps.cmd, row.id, 'Slipway stopped while the import ran; run it again');
        await this.deps.runtime.remove(`slipway-import-${row.id}`, 0).catch(() => undefined);
      } else this.launch(row.id, row.service_id);
    }
  }

  stop() {
    return this.runs.stop('Slipway was stopped during the import');
  }

  private launch(id: string, serviceId: string) {
    this.runs.launch(id, serviceId, (signal) => runImport(this.deps, id, signal));
  }
}
