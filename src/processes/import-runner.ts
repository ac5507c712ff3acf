import { parseImportEvent } from '../../commands/import/events.js';
import { parseServiceEvent } from '../../commands/service/events.js';
import { importSteps, loadImport } from '../../commands/import/handlers.js';
import type { Engine } from '../../commands/service/fields.js';
import { listRunningImports } from '../../projections/import-queries.js';
import { findService, type ServiceRow } from '../../projections/service-queries.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import { endpointOf } from '../engines/engine-plans.js';
import { openRelay } from '../engines/import-relay.js';
import { redactSource, sourceAddress, sourcePartsOf } from '../engines/import-sources.js';
import { importPostgres, sourceEndpoint } from '../engines/postgres-import.js';
import { copyRedis } from '../engines/redis-import.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../logger.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { LABEL, type ContainerRuntime } from '../runtime/container-runtime.js';
import { resolvedVariablesOf } from '../variables/project-variables.js';
import { backupTargetOf, type BackupDeps } from './backup/backup-target.js';
import { message } from './error-message.js';
import type { Reactor } from './reactor.js';
import { RunSet } from './run-set.js';

export interface ImportDeps extends BackupDeps {
  /** The database images in force now (the installation's settings change them without a restart). */
  images: () => Promise<Record<Engine, string>>;
  /** Where a source may be: checked again when the import runs (a name may resolve elsewhere by then). */
  outbound: DestinationPolicy;
  /** The network the project's containers share: its bridge, or in cluster mode its overlay. */
  projectNetwork(projectId: string): Promise<string>;
}

const helperOf = (id: string) => `slipway-import-${id}`;

/**
 * The keys of the source, copied by Slipway through a relay whose connections the helper container opens on
 * the project's network (a password travels inside the relayed connection only). The target is reached by
 * Slipway on its own published port, as its browser does.
 */
async function importRedis(deps: ImportDeps, runtime: ContainerRuntime, id: string, row: ServiceRow, env: Record<string, string>, sourceUrl: string, signal: AbortSignal) {
  const parts = sourcePartsOf('redis-url', sourceUrl);
  const address = await sourceAddress(deps, row.project_id, parts.host, parts.port);
  const helper = helperOf(id);
  await runtime.remove(helper, 0);
  await runtime.run({
    name: helper,
    image: (await deps.images()).redis,
    env: {},
    labels: { [LABEL.project]: row.project_id, [LABEL.service]: row.id },
    network: await deps.projectNetwork(row.project_id),
    aliases: [],
    internalPort: null,
    publish: false,
    command: ['sleep', 'infinity'],
  });
  try {
    const relay = await openRelay(runtime, helper, { host: address, port: parts.port }, signal);
    try {
      const endpoint = endpointOf('redis', env, await deps.nodes.port(row.node_id, row.host_port), null);
      await copyRedis({ path: relay.path, host: parts.host, tls: parts.tls, username: parts.username, password: parts.password }, endpoint, signal).catch((error: unknown) => {
        throw new Error(relay.failure() ?? message(error));
      });
    } finally {
      await relay.close();
    }
  } finally {
    await runtime.remove(helper, 0).catch(() => undefined);
  }
}

async function runImport(deps: ImportDeps, id: string, signal: AbortSignal): Promise<void> {
  if ((await importSteps.start(deps.cmd, id)).events.length === 0) return;
  const request = await loadImport(deps.cmd, id);
  if (!request?.sourceUrl) return void (await importSteps.fail(deps.cmd, id, 'the source URL can no longer be read'));
  const cut = AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutMs)]);
  try {
    // Refuses a service that is gone or not running, with a reason.
    const { runtime } = await backupTargetOf(deps, request.serviceId);
    const row = await findService(deps.db, request.serviceId);
    const engine = row!.database_engine as Engine;
    const env = await resolvedVariablesOf(deps.db, deps.keyring, row!);
    if (request.source === 'postgres-url') {
      const user = env.POSTGRES_USER || 'postgres';
      const target = new URL('postgresql://placeholder');
      target.hostname = row!.slug;
      target.port = '5432';
      target.username = user;
      target.pathname = `/${env.POSTGRES_DB || user}`;
      const { host, port } = sourcePartsOf('postgres-url', request.sourceUrl);
      await importPostgres(
        runtime,
        {
          name: helperOf(id),
          image: (await deps.images())[engine],
          network: await deps.projectNetwork(row!.project_id),
          labels: { [LABEL.project]: row!.project_id, [LABEL.service]: row!.id },
          source: sourceEndpoint(request.sourceUrl, await sourceAddress(deps, row!.project_id, host, port)),
          target: { url: target.toString(), password: env.POSTGRES_PASSWORD || null },
        },
        cut,
      );
    } else {
      await importRedis(deps, runtime, id, row!, env, request.sourceUrl, cut);
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
        await this.deps.runtime.remove(helperOf(row.id), 0).catch(() => undefined);
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
