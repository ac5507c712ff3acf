import { z } from 'zod';
import { nullableTimestamp, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const followerStatus = z.object({
  name: z.string(),
  behind: z.number().int().meta({ description: 'Events in the log after its checkpoint (capped: `behindAtLeast` says when there are more).' }),
  behindAtLeast: z.boolean(),
  position: z.string().nullable().meta({ description: 'Its checkpoint in the event log (opaque); null before it has applied anything.' }),
});

const check = z.object({ ok: z.boolean(), detail: z.string() });

/** What GET /api/health answers; `src/health.ts` builds it. */
export const healthAnswer = z
  .object({
    ok: z.boolean().meta({ description: 'No parked event, every read model live (not paused, stale or being rebuilt), no process manager paused, the Docker engine and the proxy answer, and (cluster mode) every node is ready and every service at its replica count.' }),
    projectors: z.array(
      followerStatus.extend({
        version: z.number().int(),
        state: z.enum(['live', 'rebuilding', 'stale', 'paused']).meta({
          description:
            '`stale`: its version changed and its new tables are being built (its routes answer 503 until the swap); `paused`: the database failed while it applied events, it tries again by itself.',
        }),
        error: z.string().nullable().meta({ description: 'While `paused`: the database fault it waits out.' }),
        parked: z.number().int().meta({ description: 'Events it parked because it could not apply them.' }),
      }),
    ),
    processManagers: z.array(
      followerStatus.extend({
        state: z.enum(['running', 'paused']).meta({ description: '`paused` while a database fault holds it back: its events wait, none is parked for it.' }),
        error: z.string().nullable().meta({ description: 'The database fault it is paused on; null while running.' }),
        pausedSince: nullableTimestamp,
      }),
    ),
    parked: z.number().int(),
    rebuild: z
      .object({
        phase: z.enum(['replaying', 'catching-up', 'swapping', 'done']),
        events: z.number().int(),
        total: z.number().int().nullable().meta({ description: 'Events in the store when the rebuild started, when the store can count them.' }),
        perSecond: z.number(),
        secondsLeft: z.number().nullable(),
      })
      .nullable()
      .meta({ description: 'The progress of the rebuild of the read models under way; null when none is running.' }),
    oldestTransactionSeconds: z
      .number()
      .nullable()
      .meta({ description: 'Seconds the oldest open transaction has held back the read horizon (null where it cannot be known).' }),
    warnings: z
      .array(z.string())
      .meta({ description: 'What an operator should look at although nothing failed, e.g. a long transaction holding back the read models.' }),
    docker: check,
    proxy: check,
    cluster: check
      .extend({
        nodesDown: z.array(z.object({ id: z.string(), hostname: z.string(), address: z.string(), state: z.string(), availability: z.string() })),
        servicesBelowReplicas: z.array(z.object({ serviceId: z.string(), name: z.string(), running: z.number().int(), replicas: z.number().int() })),
      })
      .nullable()
      .meta({ description: 'Cluster mode: nodes that are not `ready`, and Swarm services running fewer tasks than their replicas; null on a single server.' }),
  })
  .meta({ id: 'Health' });

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
