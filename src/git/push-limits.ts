/** The most refs (branches and tags) a service's pushed repository may hold. */
export const MAX_PUSHED_REFS = 100;

const NO_COMMIT = '0'.repeat(40);
const MB = 1024 * 1024;

export interface RefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

export interface RepositoryState {
  /** Bytes the repository holds on disk, the objects of pushes still in their pre-receive step included. */
  sizeBytes: number;
  limitBytes: number;
  /** The refs it has before the push. */
  refs: ReadonlySet<string>;
  maxRefs: number;
}

const inMb = (bytes: number) => (bytes / MB).toFixed(1);

/** Why a push must be refused for the repository's quota or its number of refs; null when it fits. */
export function pushOverLimits(state: RepositoryState, updates: readonly RefUpdate[]): string | null {
  const onlyDeletes = updates.every((update) => update.newSha === NO_COMMIT);
  if (state.sizeBytes > state.limitBytes && !onlyDeletes) {
    return `this push would make the service's repository ${inMb(state.sizeBytes)} MB, over its quota of ${inMb(state.limitBytes)} MB: push refused, nothing kept`;
  }
  const after = new Set(state.refs);
  for (const update of updates) {
    if (update.newSha === NO_COMMIT) after.delete(update.ref);
    else after.add(update.ref);
  }
  // A push that removes refs is let through even over the limit: it is how a repository gets back under it.
  if (after.size > state.maxRefs && after.size > state.refs.size) {
    return `this push would leave the service's repository with ${after.size} refs, over its limit of ${state.maxRefs}: push refused, nothing kept`;
  }
  return null;
}
