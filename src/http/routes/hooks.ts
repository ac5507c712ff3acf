import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ZodError } from 'zod';
import { HOOK_PROVIDERS, type HookProvider } from '../../../commands/auto-deploy/events.js';
import { autoDeployState, openSecret, recordRejectedDelivery } from '../../../commands/auto-deploy/handlers.js';
import { receivePush } from '../../../commands/auto-deploy/receive-push.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { findService } from '../../../projections/service-queries.js';
import type { Slipway } from '../../slipway.js';
import { isId } from '../auth.js';
import { clientAddressOf } from '../client-address.js';
import { autoDeployApi } from '../contract/auto-deploy.js';
import { route } from '../contract/endpoint.js';
import { HttpError } from '../errors.js';
import type { DeliveryFailureLimiter } from '../hooks/delivery-failure-limiter.js';
import { readHookMessage } from '../hooks/payloads.js';
import type { HookBodyReader } from '../hooks/raw-body.js';
import { receivePushDeps } from '../receive-push-deps.js';
import { checkSignature, type HeaderOf } from '../hooks/signatures.js';
import { parseJsonText } from '../json-body.js';

const ACTOR = 'system:webhook';
/** Forgejo is Gitea's fork and signs the same way. */
const providerOf = (name: string): HookProvider | null => (name === 'forgejo' ? 'gitea' : (HOOK_PROVIDERS as readonly string[]).includes(name) ? (name as HookProvider) : null);

/**
 * One answer for every delivery that is not signed with the service's secret, whatever the cause. The
 * connection is closed after it: a body that was not read is not waited for, and every refusal looks alike.
 */
const notSigned = () => new HttpError(401, 'unauthorized', 'the delivery is not signed with this service’s webhook secret', [], { Connection: 'close' });

/** The service a delivery names, when it has auto-deploy and a secret that still opens. */
async function hookTarget(app: Slipway, cmd: CommandContext, serviceId: string) {
  if (!isId(serviceId)) return null;
  const state = await autoDeployState(cmd, serviceId);
  const service = state.settings ? await findService(app.db, serviceId) : null;
  const secret = state.secret && service ? await openSecret(cmd, state.secret) : null;
  return state.settings && service && secret ? { provider: state.settings.provider, branch: service.branch, secret } : null;
}

/**
 * `POST /api/hooks/:serviceId/:provider`: no key; the provider's signature over the raw bytes is checked
 * before anything of the body is parsed. A service id without auto-deploy (or the wrong provider's route) is
 * refused like a bad signature, without reading the body; refusals count in their own limiter. The route
 * authenticates, parses and maps; what a verified delivery means is `receivePush`'s, as for a `git push`.
 */
export function hookRoutes(router: Router, app: Slipway, failures: DeliveryFailureLimiter, bodies: HookBodyReader) {
  route(router, autoDeployApi.hook, async (ctx: Context) => {
    const serviceId = ctx.params.serviceId!;
    const named = providerOf(ctx.params.provider!);
    const address = clientAddressOf(ctx);
    const cmd = app.commandContext(ACTOR);
    const target = named ? await hookTarget(app, cmd, serviceId) : null;
    const at = new Date().toISOString();
    // A refusal is recorded in the service's delivery list without holding the answer back, so every refusal
    // is answered alike, whether or not the service id has auto-deploy.
    const recordRefusal = (reason: string) => {
      if (!target) return;
      recordRejectedDelivery(cmd, serviceId, { provider: target.provider, reason, at }).catch((error: unknown) => app.log.error('could not record a refused webhook delivery', { serviceId, error: String(error) }));
    };
    if (!target || named !== target.provider) {
      await failures.refused(address, serviceId);
      recordRefusal('provider');
      throw notSigned();
    }
    const provider = target.provider;
    const header: HeaderOf = (name) => ctx.get(name);
    const body = await bodies.read(ctx.req, serviceId);
    const check = checkSignature(provider, header, target.secret, body);
    if (!check.ok) {
      await failures.refused(address, serviceId);
      recordRefusal(check.reason);
      throw notSigned();
    }

    let message;
    try {
      message = readHookMessage(provider, header, ctx.is('json') || ctx.is('+json') ? parseJsonText(body.toString('utf8')) : undefined);
    } catch (error) {
      if (!(error instanceof ZodError) && !(error instanceof HttpError)) throw error;
      await app.settle((await recordRejectedDelivery(cmd, serviceId, { provider, reason: 'malformed', at })).position);
      const text = `the delivery is not a ${provider} webhook payload Slipway reads (JSON, shaped as the provider documents it)`;
      throw new HttpError(400, 'validation_failed', text, [{ path: '(body)', message: text }]);
    }
    const bodyDigest = createHash('sha256').update(body).digest('hex');
    const verified = { provider, event: message.event, deliveryId: message.deliveryId, bodyDigest, message, at };
    const { outcome, position } = await receivePush(receivePushDeps(app, cmd), serviceId, { channel: 'webhook', serviceBranch: target.branch, delivery: verified });
    // Settled, so the deliveries list and the deployment answer with this one as soon as the sender has its answer.
    await app.settle(position);
    if ('deploymentId' in outcome) ctx.status = 202;
    ctx.body = outcome;
  });
}
