import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { invalid, notFound } from '../shared/domain-error.js';
import { uuidFromName } from '../shared/ids.js';
import { parseAutoDeployEvent, type AutoDeployEvent, type AutoDeploySettings, type WebhookDelivery } from './events.js';
import { decidePush, type PushedRef } from './push-verdict.js';

/**
 * How long accepted deliveries (their ids and body digests) are remembered to answer a replay as a duplicate,
 * counted back from the delivery being decided. Older than that, a replayed body that queued a deployment still
 * never deploys again: its deployment id derives from the body (`webhookDeploymentId`), and that deployment's
 * stream exists forever.
 */
export const DELIVERY_MEMORY_MS = 30 * 24 * 60 * 60 * 1000;

/** A verified delivery remembered for replay checks: `id:<delivery id>` or `body:<digest>`, when, and what it queued. */
export interface SeenDelivery {
  key: string;
  at: string;
  deploymentId: string | null;
}

export interface AutoDeployState {
  projectId: string | null;
  settings: AutoDeploySettings | null;
  /** Sealed; null until first configured. */
  secret: string | null;
  /** Verified deliveries of the last 30 days (as of the latest recorded), oldest first. */
  seenDeliveries: SeenDelivery[];
  /** The deployment the latest accepted push queued: a newer push replaces it while it is still queued. */
  lastPushDeploymentId: string | null;
}

const evolution: Evolution<AutoDeployState, AutoDeployEvent> = {
  category: 'autodeploy',
  initial: { projectId: null, settings: null, secret: null, seenDeliveries: [], lastPushDeploymentId: null },
  evolve(state, event) {
    switch (event.type) {
      case 'AutoDeployConfigured': {
        const { serviceId: _s, projectId, ...settings } = event.data;
        return { ...state, projectId, settings };
      }
      case 'AutoDeploySecretRotated':
        return { ...state, secret: event.data.secret };
      case 'WebhookDeliveryRecorded': {
        const delivery = event.data;
        const keys = delivery.verdict === 'duplicate' ? [] : replayKeys(delivery);
        const seen = keys.map((key) => ({ key, at: delivery.at, deploymentId: delivery.deploymentId }));
        return {
          ...state,
          seenDeliveries: keys.length > 0 ? [...remembered(state.seenDeliveries, delivery.at), ...seen] : state.seenDeliveries,
          lastPushDeploymentId: delivery.verdict === 'deployed' ? delivery.deploymentId : state.lastPushDeploymentId,
        };
      }
      default:
        return state;
    }
  },
  parse: parseAutoDeployEvent,
};

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameSettings = (a: AutoDeploySettings, b: AutoDeploySettings) =>
  a.enabled === b.enabled &&
  a.provider === b.provider &&
  a.branch === b.branch &&
  a.tagPattern === b.tagPattern &&
  sameList(a.watchPaths, b.watchPaths) &&
  sameList(a.ignorePaths, b.ignorePaths) &&
  sameList(a.skipKeywords, b.skipKeywords);

/**
 * Saving the settings; the first save also records the secret (`sealedSecret`, made by the handler), which is
 * kept by later saves. Saving what is saved records nothing.
 */
function decideConfigure(
  state: AutoDeployState,
  owner: { serviceId: string; projectId: string },
  next: AutoDeploySettings,
  sealedSecret: string,
): AutoDeployEvent[] {
  const events: AutoDeployEvent[] = [];
  if (!state.settings || !sameSettings(state.settings, next)) events.push({ type: 'AutoDeployConfigured', data: { ...owner, ...next } });
  if (state.secret === null) events.push({ type: 'AutoDeploySecretRotated', data: { serviceId: owner.serviceId, secret: sealedSecret } });
  return events;
}

function decideRotate(state: AutoDeployState, serviceId: string, sealedSecret: string): AutoDeployEvent[] {
  if (!state.settings) throw notFound('auto-deploy settings');
  return [{ type: 'AutoDeploySecretRotated', data: { serviceId, secret: sealedSecret } }];
}

/** What identifies a verified delivery for replay checks: its id, and its body's digest (nothing of a rejected one). */
function replayKeys(delivery: Pick<WebhookDelivery, 'verdict' | 'deliveryId' | 'bodyDigest'>): string[] {
  if (delivery.verdict.startsWith('rejected:')) return [];
  return [...(delivery.deliveryId !== null ? [`id:${delivery.deliveryId}`] : []), ...(delivery.bodyDigest !== null ? [`body:${delivery.bodyDigest}`] : [])];
}

/** The deliveries still remembered at `at`: those of the 30 days before it. */
function remembered(seen: readonly SeenDelivery[], at: string): SeenDelivery[] {
  const since = Date.parse(at) - DELIVERY_MEMORY_MS;
  const first = seen.findIndex((s) => Date.parse(s.at) >= since);
  return first < 0 ? [] : first === 0 ? [...seen] : seen.slice(first);
}

/** The accepted delivery a verified one repeats (under its id or with the same body, in the 30 days before it), or null. */
export function replayOf(state: AutoDeployState, delivery: Pick<WebhookDelivery, 'verdict' | 'deliveryId' | 'bodyDigest' | 'at'>): SeenDelivery | null {
  const keys = replayKeys(delivery);
  if (keys.length === 0) return null;
  return remembered(state.seenDeliveries, delivery.at).find((s) => keys.includes(s.key)) ?? null;
}

/** A verified delivery accepted before is recorded as `duplicate`, whatever it would have done. */
function decideRecordDelivery(state: AutoDeployState, serviceId: string, delivery: WebhookDelivery): AutoDeployEvent[] {
  const recorded = replayOf(state, delivery) ? { ...delivery, verdict: 'duplicate', deploymentId: null } : delivery;
  return [{ type: 'WebhookDeliveryRecorded', data: { serviceId, ...recorded } }];
}

/**
 * The deployment a verified push queues: derived from the service and the signed body, so two copies of a
 * delivery, a redelivery, or a captured body sent again years later all name the same deployment, which is
 * queued once (its stream is appended with `no_stream`).
 */
export const webhookDeploymentId = (serviceId: string, bodyDigest: string) => uuidFromName(`webhook-deployment|${serviceId}|${bodyDigest}`);

/** A delivery whose signature verified, as its payload reads. */
export interface VerifiedDelivery {
  provider: WebhookDelivery['provider'];
  event: string;
  deliveryId: string | null;
  bodyDigest: string;
  message: { kind: 'push'; push: PushedRef } | { kind: 'ping' } | { kind: 'other' };
  at: string;
}

/**
 * What becomes of a verified delivery, recorded before anything is queued: a replay is `duplicate`; a push
 * that deploys names its derived deployment, or is `duplicate` when that deployment exists already
 * (`alreadyQueued`: a body older than the 30 days remembered).
 */
function decideDelivery(
  state: AutoDeployState,
  serviceId: string,
  serviceBranch: string,
  delivery: VerifiedDelivery,
  alreadyQueued: boolean,
): AutoDeployEvent[] {
  const { message, ...rest } = delivery;
  const base = { ...rest, commitSha: message.kind === 'push' ? message.push.after : null, deploymentId: null };
  const record = (verdict: string, deploymentId: string | null = null) => decideRecordDelivery(state, serviceId, { ...base, verdict, deploymentId });
  if (message.kind === 'ping') return record('pong');
  if (message.kind === 'other') return record('skipped:event');
  if (!state.settings) throw invalid('serviceId', 'auto-deploy is not configured for this service');
  const verdict = decidePush(state.settings, serviceBranch, message.push);
  if ('skipped' in verdict) return record(`skipped:${verdict.skipped}`);
  return alreadyQueued ? record('duplicate') : record('deployed', webhookDeploymentId(serviceId, delivery.bodyDigest));
}

export function requireConfigured(state: AutoDeployState): { settings: AutoDeploySettings; secret: string } {
  if (!state.settings || !state.secret) throw invalid('serviceId', 'auto-deploy is not configured for this service');
  return { settings: state.settings, secret: state.secret };
}

/** The autoDeploy aggregate and its command vocabulary. */
export const autoDeploy = defineAggregate(evolution, {
  configure: decideConfigure,
  rotate: decideRotate,
  recordDelivery: decideRecordDelivery,
  delivery: decideDelivery,
});
