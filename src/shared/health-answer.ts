import { z } from 'zod';

const followerStatus = z.object({
  name: z.string(),
  behind: z.number().int().meta({ description: 'Events in the log after its checkpoint (capped: `behindAtLeast` says when there are more).' }),
  behindAtLeast: z.boolean(),
  position: z.string().nullable().meta({ description: 'Its checkpoint in the event log (opaque); null before it has applied anything.' }),
});

const check = z.object({ ok: z.boolean(), detail: z.string() });

/** What GET /api/health answers (and `slipway projections status` prints); `src/health.ts` builds it. */
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
        pausedSince: z.iso.datetime().nullable(),
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

/** What an operator sees of the read models, the process managers, Docker and the proxy (GET /api/health). */
export type Health = z.infer<typeof healthAnswer>;
