import { randomBytes } from 'node:crypto';
import { cancelQueuedDeployment } from '../deployment/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { autoDeploy, type AutoDeployState } from './aggregate.js';
import type { AutoDeploySettings, HookProvider, WebhookDelivery } from './events.js';

/** 32 random bytes, as the hex text a Git host is given. */
const newSecret = () => randomBytes(32).toString('hex');

export const autoDeployState = async (ctx: CommandContext, serviceId: string): Promise<AutoDeployState> =>
  (await loadAggregate(ctx, autoDeploy, serviceId)).state;

/** Saves the settings; answers the secret in clear when this save created it, else null. */
export async function configureAutoDeploy(ctx: CommandContext, owner: { serviceId: string; projectId: string }, next: AutoDeploySettings) {
  const secret = newSecret();
  const sealed = await ctx.keyring.encrypt(owner.serviceId, secret);
  const { events, position } = await execute(ctx, autoDeploy, owner.serviceId, (s) => autoDeploy.decide.configure(s, owner, next, sealed));
  return { position, secret: events.some((e) => e.type === 'AutoDeploySecretRotated') ? secret : null };
}

export async function rotateAutoDeploySecret(ctx: CommandContext, serviceId: string) {
  const secret = newSecret();
  const sealed = await ctx.keyring.encrypt(serviceId, secret);
  const { position } = await execute(ctx, autoDeploy, serviceId, (s) => autoDeploy.decide.rotate(s, serviceId, sealed));
  return { position, secret };
}

/** The secret in clear; null once the service's data key is shredded. */
export const openSecret = (ctx: CommandContext, sealed: string) => ctx.keyring.decrypt(sealed);

/**
 * Records a delivery refused before its claims could be trusted (`rejected:<reason>`: its signature, its
 * provider, a payload Slipway cannot read): an auditor sees probing too. Nothing of its body is kept.
 */
export async function recordRejectedDelivery(ctx: CommandContext, serviceId: string, rejected: { provider: HookProvider; reason: string; at: string }) {
  const delivery: WebhookDelivery = { provider: rejected.provider, at: rejected.at, event: null, deliveryId: null, bodyDigest: null, commitSha: null, verdict: `rejected:${rejected.reason}`, deploymentId: null };
  return execute(ctx, autoDeploy, serviceId, (s) => autoDeploy.decide.recordDelivery(s, serviceId, delivery));
}

/** A deployment an earlier push queued, if still queued, ends `canceled`, replaced by the newer push's. */
export const supersedeQueued = (ctx: CommandContext, deploymentId: string, newer: { deploymentId: string; commitSha: string }) =>
  cancelQueuedDeployment(ctx, deploymentId, `replaced by a newer push of ${newer.commitSha} (deployment ${newer.deploymentId})`, newer.deploymentId);
