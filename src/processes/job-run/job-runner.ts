import { parseJobRunEvent } from '../../../commands/job-run/events.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import { endedJobRunIds, unfinishedJobRuns } from '../../../projections/job-run-queries.js';
import { aggregateIdOf } from '../../../projections/stream-id.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import { LABEL } from '../../runtime/container-runtime.js';
import { message } from '../error-message.js';
import type { Reactor } from '../reactor.js';
import { executeJobRun, type ExecutionDeps } from './job-run-execution.js';

interface ActiveRun {
  serviceId: string;
  projectId: string;
  cancel: AbortController;
  detach: AbortController;
  done: Promise<void>;
}

/** How many of the installation's slots one project may hold: never all of them when there are two or more. */
export const projectShareOf = (concurrency: number) => Math.max(1, concurrency - 1);

/**
 * The process manager that runs job runs and one-off commands. A requested run is taken from the log (and, at
 * start and on each reconcile, from the read model's queued and running runs), at most `concurrency` at once
 * across the installation and `concurrency - 1` per project (a project's long runs never take every slot from the
 * others), oldest first; the rest wait queued. Runs a restart finds started are followed again.
 * When Slipway stops, runs are left running in their containers and followed again at the next start.
 */
export class JobRunner implements Reactor {
  readonly name = 'job-runner';
  private readonly active = new Map<string, ActiveRun>();
  private stopping = false;
  private pumping: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly deps: ExecutionDeps,
    private readonly options: { concurrency: number },
    private readonly log: Logger,
  ) {}

  async handle(batch: readonly RecordedEvent[]) {
    let wake = false;
    for (const recorded of batch) {
      const event = parseJobRunEvent(recorded);
      if (event?.type === 'JobRunRequested') wake = true;
      if (event?.type === 'JobRunCancelRequested') this.active.get(aggregateIdOf(recorded.streamId))?.cancel.abort(event.data.reason);
      const serviceEvent = event ? null : parseServiceEvent(recorded);
      if (serviceEvent?.type === 'ServiceDeleted') {
        const serviceId = aggregateIdOf(recorded.streamId);
        for (const run of this.active.values()) if (run.serviceId === serviceId) run.cancel.abort('the service was deleted');
        wake = true;
      }
    }
    if (wake) await this.pump();
  }

  async reconcile() {
    if (this.stopping) return;
    await this.pump();
    await this.removeLeftContainers();
  }

  /** Takes up what the read model holds: every started run not followed here, then queued ones while there is room. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.again = false;
        const share = projectShareOf(this.options.concurrency);
        for (const row of await unfinishedJobRuns(this.deps.db)) {
          if (this.stopping) return;
          if (this.active.has(row.id)) continue;
          if (row.status === 'queued') {
            if (this.active.size >= this.options.concurrency) continue;
            if ([...this.active.values()].filter((r) => r.projectId === row.project_id).length >= share) continue;
          }
          this.launch(row.id, row.service_id, row.project_id);
        }
      } while (this.again && !this.stopping);
    })()
      .catch((error: unknown) => this.log.warn('could not take up job runs; retried at the next reconcile', { error: message(error) }))
      .finally(() => (this.pumping = null));
    return this.pumping;
  }

  private launch(id: string, serviceId: string, projectId: string) {
    const cancel = new AbortController();
    const detach = new AbortController();
    const done = executeJobRun(this.deps, id, { cancel: cancel.signal, detach: detach.signal })
      .catch((error: unknown) => this.log.error('job run failed', { run: id, error: message(error) }))
      .finally(() => {
        this.active.delete(id);
        // A slot is free: the next queued run goes.
        if (!this.stopping) void this.pump();
      });
    this.active.set(id, { serviceId, projectId, cancel, detach, done });
  }

  /** Containers of runs that have ended (a removal cut short by a crash) are removed. */
  private async removeLeftContainers() {
    const containers = await this.deps.runtime.list({}).catch(() => []);
    const runIds = containers.map((c) => c.labels[LABEL.jobRun]).filter((id): id is string => !!id && !this.active.has(id));
    const ended = await endedJobRunIds(this.deps.db, runIds);
    for (const c of containers) {
      const id = c.labels[LABEL.jobRun];
      if (id && ended.has(id) && !this.active.has(id)) await this.deps.runtime.remove(c.name, 0).catch(() => undefined);
    }
  }

  /** Takes no more runs; those in progress keep running in their containers, followed again at the next start. */
  async stop() {
    this.stopping = true;
    for (const run of this.active.values()) run.detach.abort('Slipway is stopping');
    await Promise.all([...this.active.values()].map((r) => r.done));
    await this.pumping;
  }
}
