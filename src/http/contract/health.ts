import { z } from 'zod';
import { healthAnswer } from '../../shared/health-answer.js';
import { okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const parkedEvent = z
  .object({
    projector: z.string(),
    eventId: z.string(),
    position: z.string().meta({ description: 'Its position in the event log (opaque).' }),
    streamId: z.string(),
    type: z.string(),
    schemaVersion: z.number().int(),
    recordedAt: timestamp,
    error: z.string().meta({ description: 'Why the read model could not apply it.' }),
    attempts: z.number().int(),
    parkedAt: timestamp,
    data: z.record(z.string(), z.unknown()).meta({ description: 'The event’s data, encrypted fields shown as `[encrypted]` and credential material as `[redacted]`.' }),
  })
  .meta({ id: 'ParkedEvent' });

export const skippedEvent = z
  .object({
    projector: z.string(),
    eventId: z.string(),
    position: z.string(),
    streamId: z.string(),
    type: z.string(),
    error: z.string().meta({ description: 'Why the read model could not apply it.' }),
    skippedBy: z.string().meta({ description: 'The actor (API key or `cli`) that skipped it.' }),
    reason: z.string(),
    skippedAt: timestamp,
  })
  .meta({ id: 'SkippedEvent' });

export const healthApi = {
  get: endpoint({
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    tag: 'Health',
    summary: 'How far the read models and process managers are behind, parked events, the Docker engine and the proxy',
    access: 'read',
    response: healthAnswer,
  }),
  listParked: endpoint({
    method: 'get',
    path: '/api/health/parked',
    operationId: 'listParkedEvents',
    tag: 'Health',
    summary: 'The events read models parked because they could not apply them',
    access: 'read',
    allProjects: true,
    response: z.object({ parked: z.array(parkedEvent), skipped: z.array(skippedEvent) }),
  }),
  retryParked: endpoint({
    method: 'post',
    path: '/api/health/parked/:projector/:eventId/retry',
    operationId: 'retryParkedEvent',
    tag: 'Health',
    summary: 'Apply a parked event again (409 when it still cannot be applied)',
    description:
      'The last event of its stream is applied now (`outcome: applied`). An event whose stream has later events in that read model would land over newer data: the read model is rebuilt from the log instead (`outcome: rebuilding`), and the event stays parked until the rebuild swaps in (parked again if it still fails). 409 while another rebuild runs.',
    access: 'write',
    allProjects: true,
    response: z.object({ ok: z.literal(true), outcome: z.enum(['applied', 'rebuilding']) }),
  }),
  skipParked: endpoint({
    method: 'post',
    path: '/api/health/parked/:projector/:eventId/skip',
    operationId: 'skipParkedEvent',
    tag: 'Health',
    summary: 'Drop a parked event: the read model goes on without it (who and why are recorded, listed as `skipped`)',
    access: 'write',
    allProjects: true,
    body: z.object({ reason: z.string().trim().min(1).max(1000) }),
    response: okBody,
  }),
};
