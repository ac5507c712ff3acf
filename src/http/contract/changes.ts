import { z } from 'zod';
import { isPosition } from '../../eventstore/position.js';
import { id, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const position = z.string().refine(isPosition, 'must be a position the feed sent as an event id');

export const change = z
  .object({
    position: z.string().meta({ description: 'Where the event is in the log; also the SSE event id, which `Last-Event-ID` sends back on a reconnection.' }),
    type: z.string().meta({ description: 'The event type, e.g. `DeploymentSucceeded`.' }),
    streamId: z.string().meta({ description: 'The aggregate it happened to, e.g. `deployment-<id>`.' }),
    projectId: id.nullable().meta({ description: 'The project it belongs to; null for the installation’s own (keys, settings, the cluster).' }),
    serviceId: id.nullable(),
    deploymentId: id.nullable(),
    actor: z.string().meta({ description: '`key:<id>`, `cli`, `system` or `system:<process>`.' }),
    recordedAt: timestamp,
  })
  .meta({ id: 'Change' });

export const changesQuery = z.object({
  project: id.optional().meta({ description: 'Only this project’s changes (404 when the key cannot see it).' }),
  after: position.optional().meta({ description: 'Start after this position (what `Last-Event-ID` does for an EventSource, which sends it itself).' }),
});

const tag = 'History';

export const changesApi = {
  stream: endpoint({
    method: 'get',
    path: '/api/changes',
    operationId: 'streamChanges',
    tag,
    summary: 'What changes, as it changes: one Server-Sent Event per event, once the read models show it',
    description: [
      'The feed the dashboard keeps every screen current with, whoever made the change (dashboard, CLI, `git push`, a webhook, the scheduler). Scoped like every read: a project-scoped key hears only its projects.',
      'First `ready` (its id is the feed’s position), then a `change` per event once every GET shows it (a deployment’s log lines are left out: they have their own stream). Each event’s SSE id is its position: a client that reconnects with `Last-Event-ID` (an EventSource does it itself) or `after` first gets what it missed; when more than 1,000 changes were missed, or the read models were rebuilt, it gets `reset` instead (reload everything), and the feed goes on.',
      'A key may hold 20 feeds open at once (a 21st is answered 429). A comment line every 25 s keeps proxies from closing it. The stream ends (`end`) when its session or key no longer stands; the check costs no request of its own, so an open feed never keeps a session alive.',
    ].join('\n\n'),
    access: 'read',
    errors: [404, 429],
    query: changesQuery,
    headers: z.object({ 'Last-Event-ID': position.optional().meta({ description: 'The last event id heard: the feed goes on after it (ahead of `after`).' }) }),
    stream: {
      ready: z.object({ position: z.string().nullable() }),
      change,
      reset: z.object({ reason: z.string() }),
      end: z.object({ reason: z.string() }),
    },
  }),
};
