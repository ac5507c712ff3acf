import { z } from 'zod';
import { isPosition } from '../../eventstore/position.js';
import { id, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const auditEvent = z
  .object({
    position: z.string().meta({ description: 'Where the event is in the log; pass the last one as `after` for the next page.' }),
    id,
    streamId: z.string(),
    revision: z.number().int(),
    type: z.string(),
    schemaVersion: z.number().int(),
    recordedAt: timestamp,
    actor: z.string().meta({ description: '`key:<id>`, `cli`, `system` or `system:<process>`.' }),
    actorName: z.string().nullable().meta({ description: 'The name of the API key a `key:<id>` actor stands for (revoked or not), or of the person a `user:<id>` actor is (`deleted user <id>` once erased); null for any other actor.' }),
    correlationId: z.string().meta({ description: 'The request id (`X-Request-Id`) of the request that caused it.' }),
    causationId: z.string().nullable().meta({ description: 'The event a process reacted to when it appended this one; null for a request.' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'Encrypted fields read `[encrypted]`, key hashes `[redacted]`.' }),
  })
  .meta({ id: 'AuditEvent' });

export const auditQuery = z.object({
  after: z
    .string()
    .optional()
    .refine((a) => a === undefined || a === '' || isPosition(a), 'must be a position returned as next')
    .meta({ description: 'Exclusive: events after this position, or before it with `order=desc`; a page’s `next`.' }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  order: z.enum(['asc', 'desc']).default('asc').meta({ description: '`asc` (the default): oldest first; `desc`: newest first, and `after` means older than.' }),
  stream: z.string().max(200).optional().meta({ description: 'Only this stream, e.g. `service-<id>`.' }),
  correlationId: z.string().max(200).optional().meta({ description: 'Only what one request caused.' }),
  actor: z.string().max(200).optional().meta({ description: 'Only what one actor did: `key:<id>`, `system`, `system:<process>`, `cli`.' }),
  type: z.string().max(200).optional().meta({ description: 'Only events of this type, e.g. `DeploymentFailed`.' }),
  excludeType: z.string().max(200).optional().meta({ description: 'Leave out events of this type, or of these types separated by commas, e.g. `DeploymentLogAppended,JobRunLogAppended` (log lines).' }),
});

const page = z.object({
  events: z.array(auditEvent),
  next: z.string().nullable().meta({ description: 'The last position listed: pass it as `after` (with the same `order`) for the next page; null at the end.' }),
});
const paging =
  'In pages of `limit` events by position: oldest first, or newest first with `order=desc` (then `after` means older than). Each page’s `next` is the last position it lists: pass it as `after`, with the same order and filters, for the page that follows; it is null at the end.';
const tag = 'History';

export const auditApi = {
  all: endpoint({
    method: 'get',
    path: '/api/events',
    operationId: 'listEvents',
    tag,
    summary: 'The whole event history, oldest first (or newest first), in pages',
    description: paging,
    access: 'read',
    allProjects: true,
    query: auditQuery,
    response: page,
  }),
  ofProject: endpoint({
    method: 'get',
    path: '/api/projects/:projectId/events',
    operationId: 'listProjectEvents',
    tag,
    summary: 'The event history of one project and its services, oldest first (or newest first), in pages',
    description: paging,
    access: 'read',
    query: auditQuery,
    response: page,
  }),
};
