import type { Context } from 'koa';
import type { CommandContext } from '../../commands/shared/command-context.js';
import type { Slipway } from '../slipway.js';
import { actorOf, type Principal } from './auth.js';
import { idempotencySeedOf } from './idempotency.js';
import { requestIdOf } from './request-id.js';

/** The command context of a request: its key as the actor, its id as the correlation id, its idempotency seed. */
export function requestContext(app: Slipway, ctx: Context, principal: Principal): CommandContext {
  return app.commandContext(actorOf(principal), { correlationId: requestIdOf(ctx), idempotencyKey: idempotencySeedOf(ctx) });
}
