import { streamOf } from '../../commands/shared/aggregate.js';
import { service } from '../../commands/service/aggregate.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { findServiceProjectId } from '../../projections/service-queries.js';
import { aggregateIdOf } from '../../projections/stream-id.js';
import type { SqlExecutor } from '../db/sql-client.js';

const SERVICE_STREAM = streamOf(service.category, '');

/**
 * The project of each service, for the scope check of the write routes (env, domains): a batch that
 * touches a service's stream (a move, a deletion) drops it, and so does a rebuild's swap. Only services
 * that exist are remembered, so random ids do not grow it.
 */
export class ServiceScopeCache {
  private projectOf = new Map<string, string>();
  private epoch = -1;
  /** Bumped by every drop: a lookup that started before one must not be stored. */
  private generation = 0;

  constructor(
    private readonly db: SqlExecutor,
    private readonly runner: ProjectionRunner,
  ) {
    runner.onApplied((batch) => {
      for (const event of batch) {
        if (!event.streamId.startsWith(SERVICE_STREAM)) continue;
        this.projectOf.delete(aggregateIdOf(event.streamId));
        this.generation++;
      }
    });
  }

  async projectOfService(id: string): Promise<string | null> {
    if (this.epoch !== this.runner.epoch) {
      this.epoch = this.runner.epoch;
      this.projectOf.clear();
      this.generation++;
    }
    const known = this.projectOf.get(id);
    if (known) return known;
    const generation = this.generation;
    const projectId = await findServiceProjectId(this.db, id);
    if (projectId && generation === this.generation) this.projectOf.set(id, projectId);
    return projectId;
  }
}
