import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseReleaseEvent, type ReleaseEvent, type ReleaseRecordedData } from './events.js';

export interface KeptRelease extends ReleaseRecordedData {
  available: boolean;
}

/** The releases of one service (stream `release-<serviceId>`), oldest first. */
export interface ReleaseHistory {
  releases: readonly KeptRelease[];
}

const evolution: Evolution<ReleaseHistory, ReleaseEvent> = {
  category: 'release',
  initial: { releases: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'ReleaseRecorded':
        return { releases: [...state.releases, { ...event.data, available: true }] };
      case 'ReleaseImagePruned':
        return { releases: state.releases.map((r) => (r.releaseId === event.data.releaseId ? { ...r, available: false } : r)) };
    }
  },
  parse: parseReleaseEvent,
};

export type NewRelease = Omit<ReleaseRecordedData, 'version'>;

/** Versions count up per service; a deployment is recorded once (a retried record says nothing). */
function decideRecord(state: ReleaseHistory, release: NewRelease): ReleaseEvent[] {
  if (state.releases.some((r) => r.deploymentId === release.deploymentId)) return [];
  return [{ type: 'ReleaseRecorded', data: { ...release, version: state.releases.length + 1 } }];
}

function decidePrune(state: ReleaseHistory, releaseId: string): ReleaseEvent[] {
  const found = state.releases.find((r) => r.releaseId === releaseId);
  return found?.available ? [{ type: 'ReleaseImagePruned', data: { releaseId } }] : [];
}

export const releaseOfDeployment = (state: ReleaseHistory, deploymentId: string | null) =>
  deploymentId === null ? undefined : state.releases.find((r) => r.deploymentId === deploymentId);

/**
 * The release a rollback runs: the one asked for, or the release before the current one. Unknown is 404;
 * one whose image is gone, or no earlier release to go back to, is 409 with the reason.
 */
export function rollbackTarget(state: ReleaseHistory, currentDeploymentId: string | null, releaseId?: string): KeptRelease {
  let target: KeptRelease | undefined;
  if (releaseId !== undefined) {
    target = state.releases.find((r) => r.releaseId === releaseId);
    if (!target) throw notFound('release');
  } else {
    const current = releaseOfDeployment(state, currentDeploymentId);
    if (!current) throw conflict('the service has no current release to roll back from; deploy it first');
    target = state.releases.filter((r) => r.version < current.version).at(-1);
    if (!target) throw conflict(`release v${current.version} is the service's first; there is nothing to roll back to`);
  }
  if (!target.available) {
    throw conflict(`release v${target.version} cannot be rolled back to: its image was pruned (only the last releasesKept releases keep theirs)`);
  }
  return target;
}

/** The release that runs now, for start, restart and a change of limits; 409 when nothing was released yet. */
export function currentRelease(state: ReleaseHistory, currentDeploymentId: string | null, action: string): KeptRelease {
  const current = releaseOfDeployment(state, currentDeploymentId);
  if (!current) throw conflict(`the service has no release to ${action}; deploy it first`);
  if (!current.available) throw conflict(`the image of release v${current.version} is gone; deploy again`);
  return current;
}

/**
 * Releases whose images go: all but the newest `kept` by version, except those sharing an image with a kept
 * one (a rollback's release runs an older release's image), the current one and the one before it (what an
 * automatic rollback of the current one puts back, even with `releasesKept: 1`).
 */
export function releasesToPrune(state: ReleaseHistory, kept: number, currentDeploymentId: string | null): KeptRelease[] {
  const newest = state.releases.slice(-kept);
  const keep = new Set(newest.map((r) => r.imageId));
  const current = releaseOfDeployment(state, currentDeploymentId);
  if (current) {
    keep.add(current.imageId);
    const before = state.releases.filter((r) => r.version < current.version).at(-1);
    if (before) keep.add(before.imageId);
  }
  return state.releases.filter((r) => r.available && !keep.has(r.imageId));
}

/** The releaseHistory aggregate and its command vocabulary. */
export const releaseHistory = defineAggregate(evolution, {
  record: decideRecord,
  prune: decidePrune,
});
