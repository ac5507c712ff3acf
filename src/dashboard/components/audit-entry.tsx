import type { AuditEvent } from '../audit-feed.js';
import type { RequestGroup } from '../history-groups.js';
import type { HistoryNames } from '../history-names.js';
import { historySentence, humanType, toneOfEvent } from '../history-sentences.js';
import { shortIds } from '../short-id.js';
import { Badge } from './ui/badge.js';
import { RelativeTime } from './ui/relative-time.js';

/** The event a request's entry shows an outcome of: a failure before a success, the latest of each. */
function outcomeOf(events: readonly AuditEvent[]): AuditEvent | undefined {
  const last = (tone: string) => events.findLast((e) => toneOfEvent(e.type) === tone);
  return last('danger') ?? last('warning') ?? last('success');
}

/** One event in full: its sentence, then the record itself (type, stream, ids, the redacted data). */
function RawEvent({ event, names }: { event: AuditEvent; names: HistoryNames }) {
  return (
    <li>
      <p class="audit-event-sentence">
        {historySentence(event, names)} <RelativeTime at={event.recordedAt} />
      </p>
      <dl class="facts">
        <dt>Type</dt>
        <dd class="mono">{event.type}</dd>
        <dt>Stream</dt>
        <dd class="mono">{event.streamId}</dd>
        <dt>Actor</dt>
        <dd class="mono">{event.actorName ? `${event.actor} (${event.actorName})` : event.actor}</dd>
        <dt>Event</dt>
        <dd class="mono">{event.id}</dd>
        <dt>Request</dt>
        <dd class="mono">{event.correlationId}</dd>
      </dl>
      <pre>{JSON.stringify(event.data, null, 2)}</pre>
    </li>
  );
}

/**
 * What one request did, as one entry: its headline sentence, how many more events it made and the outcome among
 * them; opened, each event in full, and a way to see the request's whole story.
 */
export function AuditEntry({ group, names, onRequest }: { group: RequestGroup<AuditEvent>; names: HistoryNames; onRequest: (correlationId: string) => void }) {
  const { headline, events } = group;
  const outcome = outcomeOf(events);
  const more = events.length - 1;
  return (
    <li>
      <details>
        <summary>
          <span class="audit-headline">
            <span class="audit-sentence">{historySentence(headline, names)}</span>
            {more > 0 && <span class="audit-more">and {more} more</span>}
            {outcome && outcome !== headline && (
              <Badge status={outcome.type} tone={toneOfEvent(outcome.type)}>
                {humanType(outcome.type)}
              </Badge>
            )}
          </span>
          <RelativeTime at={events[0]!.recordedAt} />
        </summary>
        <div class="audit-entry">
          <ol class="audit-events">
            {events.map((e) => (
              <RawEvent key={e.id} event={e} names={names} />
            ))}
          </ol>
          <p class="audit-request">
            <span class="mono" title={headline.correlationId}>
              {shortIds(headline.correlationId)}
            </span>
            <button type="button" onClick={() => onRequest(headline.correlationId)}>
              Everything this request did
            </button>
          </p>
        </div>
      </details>
    </li>
  );
}
