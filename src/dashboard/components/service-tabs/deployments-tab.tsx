import type { Signal } from '@preact/signals';
import { TRIGGER_WORDS } from '../../../shared/trigger-words.js';
import { actorWords } from '../../actor-words.js';
import { durationWords } from '../../duration.js';
import { canWrite, session } from '../../session.js';
import { TableHead } from '../table-head.js';
import { Badge } from '../ui/badge.js';
import { EmptyState } from '../ui/empty-state.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { DeploymentLog, type Explanation } from './deployment-log.js';
import { FINISHED, shortSha, type Deployment, type Release } from './service-view.js';

interface Props {
  deployments: Deployment[];
  releases: Release[];
  /** The deployment whose log shows. */
  watching: Signal<string | null>;
  explanation: Explanation | null;
  abort: (id: string) => void;
  explain: (id: string) => void;
  isOver: () => Promise<boolean>;
}

const took = (d: Deployment) => (d.startedAt && d.finishedAt ? durationWords(Date.parse(d.finishedAt) - Date.parse(d.startedAt)) : d.startedAt ? 'running' : '—');

/** The service's last deployments, who started each and what it made, with the log of the one chosen. */
export function DeploymentsTab({ deployments, releases, watching, explanation, abort, explain, isOver }: Props) {
  if (deployments.length === 0) return <EmptyState title="No deployment yet">Deploy it from the Overview tab.</EmptyState>;
  const releaseOf = new Map(releases.map((r) => [r.deploymentId, r]));
  const myKeyId = session.value?.keyId ?? null;
  return (
    <>
      <TableScroll label="Deployments">
        <table class="deployments">
          <TableHead columns={['Status', 'Kind', 'Commit', 'Trigger', 'Who', 'Took', 'When']} actions />
          <tbody>
            {deployments.map((d) => {
              const made = releaseOf.get(d.id);
              return (
                <tr key={d.id} data-status={d.status} aria-current={d.id === watching.value ? 'true' : undefined}>
                  <td>
                    <Badge status={d.status} />
                  </td>
                  <td>
                    {d.kind}
                    {made && <span class="muted"> → v{made.version}</span>}
                  </td>
                  <td class="commit">
                    {d.commitSha ? (
                      <>
                        <code>{shortSha(d.commitSha)}</code> {d.commitMessage ?? made?.commitMessage ?? ''}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{TRIGGER_WORDS[d.trigger]}</td>
                  <td>{actorWords(d.actor, d.actorName, myKeyId)}</td>
                  <td>{took(d)}</td>
                  <td>
                    <RelativeTime at={d.startedAt ?? d.createdAt} />
                  </td>
                  <td>
                    <button type="button" class="btn-small" aria-pressed={d.id === watching.value} onClick={() => (watching.value = d.id)}>
                      Log
                    </button>
                    {canWrite.value && !FINISHED.has(d.status) && (
                      <button type="button" class="btn-small" onClick={() => abort(d.id)}>
                        Abort
                      </button>
                    )}
                    {canWrite.value && (d.status === 'failed' || d.status === 'rolled_back') && (
                      <button type="button" class="btn-small" onClick={() => explain(d.id)}>
                        Explain
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      <DeploymentLog watching={watching.value} explanation={explanation} isOver={isOver} />
    </>
  );
}
