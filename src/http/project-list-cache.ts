import { listProjects } from '../../projections/project-queries.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { listServicesOf, type ServiceRow } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { RecordedEvent } from '../eventstore/port.js';
import { presentProject } from './presenters.js';
import type { PublicAddress } from '../proxy/public-url.js';

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
  private filling: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: SqlExecutor,
    private readonly runner: ProjectionRunner,
    private readonly addressOf: () => Promise<PublicAddress>,
  ) {
    runner.onApplied((batch) => this.invalidate(batch));
  }

  private invalidate(batch: readonly RecordedEvent[]) {
    this.generation++;
    this.everything = null;
    for (const event of batch) {
      // Switching HTTPS changes every service's primaryUrl.
      if (event.type === 'GeneralSettingsChanged') this.json.clear();
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

  /**
   * The JSON of each project in `ids` that exists, reading those not cached in two queries in all. One fill
   * runs at a time, so concurrent answers after a change (or a rebuild's swap) share it.
   */
  private async projectJsons(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.every((id) => this.json.has(id))) return new Map(ids.map((id) => [id, this.json.get(id)!]));
    const fill = this.filling.then(() => this.fill(ids));
    this.filling = fill.catch(() => undefined);
    return fill;
  }

  /** The cached JSON of `ids`, and the rest read (once a fill queued earlier has run, what it kept is reused). */
  private async fill(ids: readonly string[]): Promise<Map<string, string>> {
    const filled = new Map<string, string>();
    const missing = ids.filter((id) => {
      const cached = this.json.get(id);
      if (cached !== undefined) filled.set(id, cached);
      return cached === undefined;
    });
    if (missing.length === 0) return filled;
    const generation = this.generation;
    const [rows, services, address] = [await listProjects(this.db, missing), await listServicesOf(this.db, missing), await this.addressOf()];
    const byProject = new Map<string, ServiceRow[]>();
    for (const s of services) {
      const own = byProject.get(s.project_id);
      if (own) own.push(s);
      else byProject.set(s.project_id, [s]);
    }
    for (const row of rows) {
      const own = byProject.get(row.id) ?? [];
      for (const s of own) this.serviceOwner.set(s.id, row.id);
      const json = JSON.stringify(presentProject(row, own, address));
      filled.set(row.id, json);
      // A fill that an invalidation overtook still answers its own request (it read after that request's
      // writes settled), but is not kept.
      if (generation === this.generation) this.json.set(row.id, json);
    }
    return filled;
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
    const jsons = await this.projectJsons(ids);
    const parts = ids.flatMap((id) => jsons.get(id) ?? []);
    const body = Buffer.from(`{"projects":[${parts.join(',')}]}`);
    if (visible === null && generation === this.generation) this.everything = body;
    return body;
  }
}
