import { actorWords } from '../../actor-words.js';
import { releaseChangeWords } from '../../release-change-words.js';
import { canWrite, session } from '../../session.js';
import { Badge } from '../ui/badge.js';
import { EmptyState } from '../ui/empty-state.js';
import { RelativeTime } from '../ui/relative-time.js';
import { shortSha, type Release } from './service-view.js';

/** Every deployment that went live, newest first: when, who, what ran and what changed; any kept one can run again. */
export function ReleasesTab({ releases, rollback }: { releases: Release[]; rollback: (release: Release) => void }) {
  if (releases.length === 0) return <EmptyState title="No release yet">A deployment that goes live makes one.</EmptyState>;
  const myKeyId = session.value?.keyId ?? null;
  return (
    <ul class="surface-list releases">
      {releases.map((r) => (
        <li key={r.id}>
          <div class="release-head">
            <strong>v{r.version}</strong>
            {r.current && <Badge status="current" tone="success" />}
            {!r.available && <Badge status="pruned" tone="neutral" />}
            <RelativeTime at={r.createdAt} />
            <span class="muted">by {actorWords(r.actor, r.actorName, myKeyId)}</span>
          </div>
          <div class="release-what">
            {r.commitSha ? (
              <>
                <code>{shortSha(r.commitSha)}</code> {r.commitMessage ?? ''}
              </>
            ) : (
              <code title={r.imageId}>{r.imageId.replace('sha256:', '').slice(0, 12)}</code>
            )}
          </div>
          <div class="release-changes">{releaseChangeWords(r.changes)}</div>
          {canWrite.value && !r.current && r.available && (
            <button type="button" class="btn-small" onClick={() => rollback(r)}>
              Roll back to this
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
