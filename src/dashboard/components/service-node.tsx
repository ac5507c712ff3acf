import type { Ref } from 'preact';
import type { Project } from '../projects-store.js';
import { HealthBadge } from './service-health.js';
import { Badge } from './ui/badge.js';
import { BoxIcon, DatabaseIcon, GitIcon } from './ui/icons.js';
import { RelativeTime } from './ui/relative-time.js';

export type Service = Project['services'][number];

/** What a service runs: a database engine, an image, or code from Git; and from where. */
function sourceOf(s: Service): { kind: 'database' | 'image' | 'git'; detail: string } {
  if (s.repoUrl === 'database') return { kind: 'database', detail: (s.repoFullName ?? 'database').replace('database:', '') };
  if (s.repoUrl === 'docker-image') return { kind: 'image', detail: s.dockerImage ?? 'image' };
  if (s.repoUrl === 'push') return { kind: 'git', detail: `pushed · ${s.branch}` };
  return { kind: 'git', detail: `${s.repoFullName ?? s.repoUrl.replace(/^https?:\/\//, '')}${s.branch ? ` · ${s.branch}` : ''}` };
}

const ICONS = { database: DatabaseIcon, image: BoxIcon, git: GitIcon };

/** Where it answers: its domain, else its local address; a worker has none. */
const addressOf = (s: Service) => s.preferredDomain ?? (s.primaryUrl ? s.primaryUrl.replace(/^[a-z]+:\/\//, '') : null);

/**
 * One service on the project's canvas, the whole card a link to its page. `uses` says in words what it
 * references (`db.DATABASE_URL`): the canvas draws it as edges, a phone and a screen reader read it here.
 */
export function ServiceNode({ service: s, uses, cardRef, active }: { service: Service; uses: string[]; cardRef: Ref<HTMLAnchorElement>; active: (on: boolean) => void }) {
  const source = sourceOf(s);
  const Icon = ICONS[source.kind];
  const address = addressOf(s);
  return (
    <a
      class={`service-node kind-${source.kind}`}
      href={`/services/${s.id}`}
      ref={cardRef}
      onMouseEnter={() => active(true)}
      onMouseLeave={() => active(false)}
      onFocus={() => active(true)}
      onBlur={() => active(false)}
    >
      <span class="node-head">
        <span class="node-icon" aria-hidden="true">
          <Icon />
        </span>
        <span class="node-title">
          <strong class="node-name">{s.name}</strong>
          <span class="node-source" title={source.detail}>
            {source.kind} · {source.detail}
          </span>
        </span>
        <Badge status={s.status} />
      </span>
      <span class="node-address">{address ?? 'no address (worker)'}</span>
      <span class="node-foot">
        {s.health.status !== 'none' && <HealthBadge health={s.health} />}
        <span class="node-deployed">{s.lastDeployedAt ? <>deployed <RelativeTime at={s.lastDeployedAt} /></> : 'never deployed'}</span>
      </span>
      {uses.length > 0 && <span class="node-uses">uses {uses.join(', ')}</span>}
    </a>
  );
}
