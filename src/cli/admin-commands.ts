import { z } from 'zod';
import { createApiKey, revokeApiKey } from '../../commands/api-key/handlers.js';
import { findApiKey, listApiKeys } from '../../projections/api-key-queries.js';
import { listAuditEvents } from '../../projections/audit-queries.js';
import { listParked } from '../catch-up/parking.js';
import { health } from '../health.js';
import { presentApiKey, presentAuditEvent, presentParked } from '../http/presenters.js';
import type { Slipway } from '../slipway.js';

export const adminRequest = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('keys.create'),
    name: z.string().trim().min(1).max(100),
    access: z.enum(['read', 'write']),
    projectIds: z.array(z.string()).nullable(),
  }),
  z.object({ command: z.literal('keys.list') }),
  z.object({ command: z.literal('keys.revoke'), id: z.string() }),
  z.object({ command: z.literal('projections.rebuild'), projectors: z.array(z.string()).default([]) }),
  z.object({ command: z.literal('projections.status') }),
  z.object({ command: z.literal('projections.parked') }),
  z.object({ command: z.literal('projections.retry'), projector: z.string(), eventId: z.string() }),
  z.object({ command: z.literal('projections.skip'), projector: z.string(), eventId: z.string(), reason: z.string().trim().min(1).max(1000) }),
  z.object({
    command: z.literal('events'),
    after: z.string().nullable(),
    limit: z.number().int().min(1).max(10_000),
    stream: z.string().nullable(),
    correlationId: z.string().min(1).max(200).nullable().optional(),
  }),
]);
export type AdminRequest = z.infer<typeof adminRequest>;

/** What the CLI can do, run in whichever process holds the data directory. */
export async function runAdminCommand(app: Slipway, request: AdminRequest, progress: (update: unknown) => void = () => undefined): Promise<unknown> {
  const ctx = app.commandContext('cli');
  switch (request.command) {
    case 'keys.create': {
      const { id, secret, position } = await createApiKey(ctx, { ...request, ownerUserId: null });
      await app.settle(position);
      return { key: presentApiKey((await findApiKey(app.db, id))!), secret };
    }
    case 'keys.list':
      return { keys: (await listApiKeys(app.db)).map(presentApiKey) };
    case 'keys.revoke': {
      const { position } = await revokeApiKey(ctx, request.id);
      await app.settle(position);
      return { ok: true };
    }
    case 'projections.rebuild':
      return app.runner.rebuild(request.projectors, progress);
    case 'projections.status':
      return health(app);
    case 'projections.parked':
      return { parked: (await listParked(app.db)).map(presentParked) };
    case 'projections.retry':
      return { result: await app.runner.retryParked(request.projector, request.eventId) };
    case 'projections.skip':
      return { skipped: await app.runner.skipParked(request.projector, request.eventId, { actor: ctx.actor, reason: request.reason }) };
    case 'events': {
      const rows = await listAuditEvents(app.db, {
        after: request.after,
        limit: request.limit,
        ...(request.stream ? { stream: request.stream } : {}),
        ...(request.correlationId ? { correlationId: request.correlationId } : {}),
      });
      return { events: rows.map(presentAuditEvent) };
    }
  }
}
