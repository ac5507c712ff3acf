import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../shared/command-context.js';
import { appendEventIds } from '../shared/ids.js';
import { currentSchemaVersion } from '../upcasters.js';
import { DATABASE_CATEGORY, type DatabaseEvent } from './events.js';
import { redactStatement } from './statement-redaction.js';

type Target = { serviceId: string; projectId: string; engine: string };

/** A statement run through the API: sealed under the service's data key, masked for auditors. */
export async function queryRunEvent(ctx: CommandContext, target: Target, statement: string): Promise<DatabaseEvent> {
  const sealedStatement = await ctx.keyring.encrypt(target.serviceId, statement);
  return { type: 'DatabaseQueryRun', data: { ...target, statement: redactStatement(target.engine, statement), sealedStatement } };
}

/**
 * Records an operation on a database service for auditors. There is nothing to decide: the stream is a
 * journal (any revision), and an idempotent retry derives the same event id, so it is recorded once.
 */
export async function recordDatabaseOperation(ctx: CommandContext, event: DatabaseEvent) {
  const streamId = `${DATABASE_CATEGORY}-${event.data.serviceId}`;
  const derivedId = appendEventIds(ctx, streamId);
  const result = await ctx.store.append(
    streamId,
    [
      {
        id: derivedId ? derivedId(0) : randomUUID(),
        type: event.type,
        schemaVersion: currentSchemaVersion(event.type),
        data: event.data as Record<string, unknown>,
        metadata: { actor: ctx.actor, correlationId: ctx.correlationId, causationId: ctx.causationId ?? null },
      },
    ],
    'any',
  );
  return { position: result.position };
}
