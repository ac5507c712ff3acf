import { NO_RELEASE } from '../../../../commands/service/aggregate.js';
import type { Release } from '../../../../commands/service/events.js';
import { releaseService } from '../../../../commands/service/handlers.js';
import type { RunDeps } from './run-deps.js';

/**
 * What a run has made so far and must take back if it fails: the run fills it in as it goes and clears it once
 * its success is recorded; the dispatcher undoes what is left, in this order, after logging the reason.
 */
export class RunLeftovers {
  /** The route this run switched, with the release that was current before it (null: none). */
  release: { previous: Release | null } | null = null;
  container: string | null = null;
  image: string | null = null;

  async undo(deps: RunDeps, serviceId: string) {
    if (this.release) await undoRelease(deps, serviceId, this.release.previous);
    if (this.container) await deps.runtime.remove(this.container, 1).catch(() => undefined);
    if (this.image) await deps.runtime.removeImage(this.image).catch(() => undefined);
  }
}

/** Puts the route back where it was before this run, so the previous container keeps serving. */
async function undoRelease(deps: RunDeps, serviceId: string, previous: Release | null) {
  const back = await releaseService(deps.cmd, serviceId, previous ?? NO_RELEASE).catch(() => null);
  if (back && deps.settings.proxyEnabled) await deps.proxy.sync(back.position).catch(() => undefined);
}
