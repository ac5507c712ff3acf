import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ZodError } from 'zod';
import { isReplay, type AutoDeployState } from '../../../commands/auto-deploy/aggregate.js';
import { HOOK_PROVIDERS, type HookProvider, type WebhookDelivery } from '../../../commands/auto-deploy/events.js';
import { autoDeployState, cancelDuplicate, openSecret, recordDelivery, supersedeQueued } from '../../../commands/auto-deploy/handlers.js';
import { decidePush } from '../../../commands/auto-deploy/push-verdict.js';
import { queueDeployment } from '../../../commands/deployment/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { latest } from '../../../commands/shared/execute.js';
import { findService } from '../../../projections/service-queries.js';
import type { Slipway } from '../../slipway.js';
import { isId } from '../auth.js';
import { clientAddressOf } from '../client-address.js';
import { autoDeployApi } from '../contract/auto-deploy.js';
import { route } from '../contract/endpoint.js';
import { HttpError, unauthorized } from '../errors.js';
import { readHookMessage } from '../hooks/payloads.js';
import { readRawBody } from '../hooks/raw-body.js';
import { checkSignature, type HeaderOf } from '../hooks/signatures.js';
import { parseJsonText } from '../json-body.js';
import type { KeyFailureLimiter } from '../key-failure-limiter.js';

const ACTOR = 'system:webhook';
/** Forgejo is Gitea's fork and signs the same way. */
const providerOf = (name: string): HookProvider | null => (name === 'forgejo' ? 'gitea' : (HOOK_PROVIDERS as readonly string[]).includes(name) ? (name as HookProvider) : null);

/** One answer for every delivery that is not signed with the service's secret, whatever the cause. */
const notSigned = () => unauthorized('the delivery is not signed with this service’s webhook secret');

/**
 * `POST /api/hooks/:serviceId/:provider`: no key; the provider's signature over the raw bytes is checked
 * before anything of the body is parsed, and every failure counts toward the address's limit like an unknown key.
 */
export function hookRoutes(router: Router, app: Slipway, failures: KeyFailureLimiter) {
  route(router, autoDeployApi.hook, async (ctx: Context) => {
    const serviceId = ctx.params.serviceId!;
    const named = providerOf(ctx.params.provider!);
    const address = clientAddressOf(ctx);
    await failures.check(address);
    const cmd = app.commandContext(ACTOR);
    const state: AutoDeployState | null = isId(serviceId) && named ? await autoDeployState(cmd, serviceId) : null;
    const service = state?.settings ? await findService(app.db, serviceId) : null;
    const secret = state?.secret && service ? await openSecret(cmd, state.secret) : null;
    if (!state?.settings || !service || !secret || !named) {
      await failures.signatureFailed(address, serviceId);
      throw notSigned();
    }
    const settings = state.settings;
    const provider = settings.provider;
    const header: HeaderOf = (name) => ctx.get(name);
    const body = await readRawBody(ctx);
    // Settled, so the deliveries list answers with this one as soon as the sender has its answer.
    const record = async (delivery: Omit<WebhookDelivery, 'provider' | 'at'>) => {
      const recorded = await recordDelivery(cmd, serviceId, { provider, at: new Date().toISOString(), ...delivery });
      await app.settle(recorded.position);
      return recorded;
    };
    const rejected = (why: string) => ({ event: null, deliveryId: null, bodyDigest: null, commitSha: null, verdict: `rejected:${why}`, deploymentId: null });

    const check = named === provider ? checkSignature(provider, header, secret, body) : ({ ok: false, reason: 'provider' } as const);
    if (!check.ok) {
      await record(rejected(check.reason));
      await failures.signatureFailed(address, serviceId);
      throw notSigned();
    }

    let message;
    try {
      message = readHookMessage(provider, header, ctx.is('json') || ctx.is('+json') ? parseJsonText(body.toString('utf8')) : undefined);
    } catch (error) {
      if (!(error instanceof ZodError) && !(error instanceof HttpError)) throw error;
      await record(rejected('malformed'));
      const message = `the delivery is not a ${provider} webhook payload Slipway reads (JSON, shaped as the provider documents it)`;
      throw new HttpError(400, 'validation_failed', message, [{ path: '(body)', message }]);
    }
    const { event, deliveryId } = message;
    const commitSha = message.kind === 'push' ? message.push.after : null;
    const bodyDigest = createHash('sha256').update(body).digest('hex');
    const base = { event, deliveryId, bodyDigest, commitSha, deploymentId: null };

    if (isReplay(state, { ...base, verdict: 'received' })) {
      await record({ ...base, verdict: 'duplicate' });
      ctx.body = { duplicate: true };
      return;
    }
    if (message.kind !== 'push') {
      const pong = message.kind === 'ping';
      await record({ ...base, verdict: pong ? 'pong' : 'skipped:event' });
      ctx.body = pong ? { pong: true } : { skipped: 'event' };
      return;
    }
    const verdict = decidePush(settings, service.branch, message.push);
    if ('skipped' in verdict) {
      await record({ ...base, verdict: `skipped:${verdict.skipped}` });
      ctx.body = { skipped: verdict.skipped };
      return;
    }
    const { deploymentId, position } = await deployPush(cmd, serviceId, commitSha!, (id) => record({ ...base, verdict: 'deployed', deploymentId: id }));
    await app.settle(position);
    if (deploymentId === null) {
      ctx.body = { duplicate: true };
      return;
    }
    ctx.status = 202;
    ctx.body = { deploymentId };
  });
}

/**
 * Queues the pushed commit, records the delivery, then replaces the previous pushed deployment if it is still
 * queued. A copy of the delivery recorded first meanwhile makes this one a duplicate: its deployment is canceled.
 */
async function deployPush(
  cmd: CommandContext,
  serviceId: string,
  commitSha: string,
  recordDeployed: (deploymentId: string) => ReturnType<typeof recordDelivery>,
): Promise<{ deploymentId: string | null; position: string | null }> {
  const queued = await queueDeployment(cmd, serviceId, { kind: 'deploy', trigger: 'webhook', releaseId: null, config: 'current', commitSha });
  const { recorded, previousPushDeploymentId: previous, position } = await recordDeployed(queued.id);
  if (recorded.verdict === 'duplicate') {
    const canceled = await cancelDuplicate(cmd, queued.id);
    return { deploymentId: null, position: latest(queued.position, position, canceled.position) };
  }
  const superseded = previous && previous !== queued.id ? await supersedeQueued(cmd, previous, { deploymentId: queued.id, commitSha }) : null;
  return { deploymentId: queued.id, position: latest(queued.position, position, superseded?.position ?? null) };
}
