import type { Context } from 'koa';
import type { CommandContext } from '../../commands/shared/command-context.js';
import type { Slipway } from '../slipway.js';
import { actorOf } from './auth.js';
import type { Principal } from './principals.js';
import { idempotencySeedOf } from './idempotency.js';
import { correlationIdOf } from './request-id.js';

/** The command context of a request: its key as the actor, its correlation id (its request id, see `correlation`), its idempotency seed. */
export function requestContext(app: Slipway, ctx: Context, principal: Principal): CommandContext {
  return app.commandContext(actorOf(principal), { correlationId: correlationIdOf(ctx), idempotencyKey: idempotencySeedOf(ctx) });
}
