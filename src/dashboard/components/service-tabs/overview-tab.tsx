import { canWrite } from '../../session.js';
import { HealthBadge, Usage } from '../service-health.js';
import { Badge } from '../ui/badge.js';
import { RelativeTime } from '../ui/relative-time.js';
import { isFromGit, pushRemoteOf, type Overview, type Release } from './service-view.js';

/** The service at a glance: where it answers, what runs, how it does, and its last deployment. */
export function OverviewTab({ overview, releases, deploy }: { overview: Overview; releases: Release[]; deploy: () => void }) {
  const s = overview.service;
  const current = releases.find((r) => r.current);
  const last = overview.deployments[0];
  return (
    <>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge status={s.status} />
        </dd>
        <dt>Address</dt>
        <dd>{s.primaryUrl ? <a href={s.primaryUrl}>{s.primaryUrl}</a> : '—'}</dd>
        <dt>Source</dt>
        <dd>{s.repoUrl === 'push' ? `pushed to Slipway, branch ${s.branch}` : (s.dockerImage ?? s.repoFullName ?? s.repoUrl)}</dd>
        {isFromGit(s) && (
          <>
            <dt>Push to deploy</dt>
            <dd>
              <code>git remote add slipway {pushRemoteOf(s)}</code>
              <span class="muted"> then </span>
              <code>git push slipway {s.branch}</code>
              <br />
              <span class="muted">
                git asks for a password: an API key that may write to this project (or <code>slipway git-remote {s.slug} --add</code> gives it for you).
              </span>
            </dd>
          </>
        )}
        <dt>Current release</dt>
        <dd>
          {current ? (
            <>
              v{current.version}, <RelativeTime at={current.createdAt} />
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>Health</dt>
        <dd>
          <HealthBadge health={s.health} />
          {s.restarts > 0 && `, ${s.restarts} restart(s)`}
        </dd>
        <dt>Use</dt>
        <Usage usage={overview.usage} resources={overview.resources} running={s.status === 'active'} />
        <dt>Last deployment</dt>
        <dd class="last-deployment">
          {last ? (
            <>
              <Badge status={last.status} /> {last.kind}, <RelativeTime at={last.startedAt ?? last.createdAt} />
            </>
          ) : (
            'never deployed'
          )}
        </dd>
      </dl>
      {canWrite.value && (
        <p>
          <button type="button" class="btn-primary" onClick={deploy}>
            Deploy
          </button>
        </p>
      )}
    </>
  );
}
