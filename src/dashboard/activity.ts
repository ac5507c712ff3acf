import type { components } from '../shared/api-types.js';
import { groupByRequest } from './history-groups.js';
import { historyNames } from './history-names.js';
import { historySentence, humanType, toneOfEvent, type EventTone } from './history-sentences.js';

type AuditEvent = components['schemas']['AuditEvent'];

export interface Activity {
  id: string;
  /** When its request's latest event happened. */
  at: string;
  /** What the request did, in the audit log's words: `ci deployed web (commit 3f2a1c9)`. */
  text: string;
  /** How it ended, when a later event of the request says so: `Deployment failed`. */
  outcome: { text: string; tone: EventTone } | null;
  tone: EventTone;
}

/** A request's outcome: a failure before a warning before a success, the latest of each. */
const OUTCOMES: EventTone[] = ['danger', 'warning', 'success'];

/**
 * A project's recent events, newest first, as one line per request, as the audit log tells them: its sentence
 * (services by today's names), when, and its outcome.
 */
export function projectActivity(newestFirst: readonly AuditEvent[], project: { id: string; name: string; services: readonly { id: string; name: string }[] }): Activity[] {
  const names = historyNames([project], newestFirst);
  return groupByRequest(newestFirst).map(({ events, headline }) => {
    const outcome = OUTCOMES.map((tone) => events.findLast((e) => toneOfEvent(e.type) === tone)).find((e) => e !== undefined);
    return {
      id: headline.id,
      at: events.at(-1)!.recordedAt,
      text: historySentence(headline, names),
      outcome: outcome && outcome !== headline ? { text: humanType(outcome.type), tone: toneOfEvent(outcome.type) } : null,
      tone: toneOfEvent((outcome ?? headline).type),
    };
  });
}
