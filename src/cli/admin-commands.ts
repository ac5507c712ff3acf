import { z } from 'zod';
import { createApiKey, revokeApiKey } from '../../commands/apikey/handlers.js';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { findApiKey, listApiKeys } from '../../projections/api-key-queries.js';
import { listAuditEvents } from '../../projections/audit-queries.js';
import { rebuildProjections } from '../../projections/runner.js';
import { presentApiKey, presentAuditEvent } from '../http/presenters.js';
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
  z.object({ command: z.literal('projections.rebuild') }),
  z.object({
    command: z.literal('events'),
    after: z.string().nullable(),
    limit: z.number().int().min(1).max(10_000),
    stream: z.string().nullable(),
  }),
]);
export type AdminRequest = z.infer<typeof adminRequest>;

/** What the CLI can do, run in whichever process holds the data directory. */
export async function runAdminCommand(app: Slipway, request: AdminRequest): Promise<unknown> {
  const ctx = app.commandContext('cli');
  switch (request.command) {
    case 'keys.create': {
      const { id, secret, position } = await createApiKey(ctx, request);
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
    case 'projections.rebuild': {
      const started = performance.now();
      await app.runner.stop();
      try {
        const { events } = await rebuildProjections(app.db, app.store, ALL_PROJECTORS);
        return { events, ms: Math.round(performance.now() - started) };
      } finally {
        await app.runner.start();
      }
    }
    case 'events': {
      const rows = await listAuditEvents(app.db, {
        after: request.after,
        limit: request.limit,
        ...(request.stream ? { stream: request.stream } : {}),
      });
      return { events: rows.map(presentAuditEvent) };
    }
  }
}
