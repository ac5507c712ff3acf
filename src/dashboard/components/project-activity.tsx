import type { Activity } from '../activity.js';
import { Badge } from './ui/badge.js';
import { EmptyState } from './ui/empty-state.js';
import { ListIcon } from './ui/icons.js';
import { RelativeTime } from './ui/relative-time.js';

/** What happened in a project lately, newest first: one line per request, its outcome, and when. */
export function ProjectActivity({ items }: { items: Activity[] }) {
  if (items.length === 0)
    return (
      <EmptyState title="Nothing has happened yet" icon={<ListIcon />} compact>
        <p>Deployments, variables and domains show here as they change.</p>
      </EmptyState>
    );
  return (
    <ol class="activity">
      {items.map((a) => (
        <li key={a.id} class={`tone-${a.tone}`}>
          <span class="dot" aria-hidden="true" />
          <span class="activity-text">
            {a.text}
            {a.outcome && (
              <>
                {' '}
                <Badge status={a.outcome.text} tone={a.outcome.tone}>
                  {a.outcome.text}
                </Badge>
              </>
            )}
          </span>
          <RelativeTime at={a.at} />
        </li>
      ))}
    </ol>
  );
}
