import { findProject, listProjects } from '../../projections/project-queries.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { listServicesOf } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { RecordedEvent } from '../eventstore/port.js';
import { presentProject } from './presenters.js';

const str = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * `GET /api/projects` as serialised JSON per project. Read models change only when the runner applies a
 * batch, so a batch drops just the projects it touched and every other answer is string concatenation.
 */
export class ProjectListCache {
  private order: string[] | null = null;
  private json = new Map<string, string>();
  private serviceOwner = new Map<string, string>();
  private epoch = -1;
  /** The whole answer for all-project keys, encoded once per change. */
  private everything: Buffer | null = null;
  /** Bumped by every invalidation: a fill that started before one must not be stored. */
  private generation = 0;

  constructor(
    private readonly db: SqlExecutor,
    private readonly runner: ProjectionRunner,
  ) {
    runner.onApplied((batch) => this.invalidate(batch));
  }

  private invalidate(batch: readonly RecordedEvent[]) {
    this.generation++;
    this.everything = null;
    for (const event of batch) {
      const id = event.streamId.slice(event.streamId.indexOf('-') + 1);
      if (event.streamId.startsWith('project-')) {
        this.json.delete(id);
        if (event.type === 'ProjectCreated' || event.type === 'ProjectDeleted') this.order = null;
      } else if (event.streamId.startsWith('service-')) {
        for (const owner of [this.serviceOwner.get(id), str(event.data.projectId), str(event.data.fromProjectId), str(event.data.toProjectId)]) {
          if (owner) this.json.delete(owner);
        }
      }
    }
  }

  private async projectJson(id: string): Promise<string | null> {
    const cached = this.json.get(id);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const row = await findProject(this.db, { id });
    if (!row) return null;
    const services = await listServicesOf(this.db, [id]);
    for (const s of services) this.serviceOwner.set(s.id, id);
    const json = JSON.stringify(presentProject(row, services));
    if (generation === this.generation) this.json.set(id, json);
    return json;
  }

  /** `{ "projects": [...] }` for the visible projects (`null`: all), in creation order. */
  async render(visible: readonly string[] | null): Promise<Buffer> {
    if (this.epoch !== this.runner.epoch) {
      this.epoch = this.runner.epoch;
      this.order = null;
      this.everything = null;
      this.json.clear();
      this.serviceOwner.clear();
    }
    if (visible === null && this.everything) return this.everything;
    const generation = this.generation;
    let order = this.order;
    if (!order) {
      order = (await listProjects(this.db, null)).map((p) => p.id);
      if (generation === this.generation) this.order = order;
    }
    const ids = visible === null ? order : order.filter((id) => visible.includes(id));
    const parts: string[] = [];
    for (const id of ids) {
      const json = await this.projectJson(id);
      if (json !== null) parts.push(json);
    }
    const body = Buffer.from(`{"projects":[${parts.join(',')}]}`);
    if (visible === null && generation === this.generation) this.everything = body;
    return body;
  }
}
