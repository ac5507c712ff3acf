import type { Aggregate } from '../shared/aggregate.js';
import { invalid, notFound } from '../shared/domain-error.js';
import { parseAutoDeployEvent, type AutoDeployEvent, type AutoDeploySettings, type WebhookDelivery } from './events.js';

/** How many accepted deliveries (their ids and body digests) are remembered to answer a replay as a duplicate. */
export const DELIVERY_IDS_KEPT = 2000;

export interface AutoDeployState {
  projectId: string | null;
  settings: AutoDeploySettings | null;
  /** Sealed; null until first configured. */
  secret: string | null;
  /** `id:<delivery id>` and `body:<digest>` of verified deliveries, oldest first. */
  seenDeliveryIds: string[];
  /** The deployment the latest accepted push queued: a newer push replaces it while it is still queued. */
  lastPushDeploymentId: string | null;
}

export const autoDeploy: Aggregate<AutoDeployState, AutoDeployEvent> = {
  category: 'autodeploy',
  initial: { projectId: null, settings: null, secret: null, seenDeliveryIds: [], lastPushDeploymentId: null },
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
        return {
          ...state,
          seenDeliveryIds: keys.length > 0 ? [...state.seenDeliveryIds, ...keys].slice(-DELIVERY_IDS_KEPT * 2) : state.seenDeliveryIds,
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
export function decideConfigure(
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

export function decideRotate(state: AutoDeployState, serviceId: string, sealedSecret: string): AutoDeployEvent[] {
  if (!state.settings) throw notFound('auto-deploy settings');
  return [{ type: 'AutoDeploySecretRotated', data: { serviceId, secret: sealedSecret } }];
}

/** What identifies a verified delivery for replay checks: its id, and its body's digest (nothing of a rejected one). */
function replayKeys(delivery: Pick<WebhookDelivery, 'verdict' | 'deliveryId' | 'bodyDigest'>): string[] {
  if (delivery.verdict.startsWith('rejected:')) return [];
  return [...(delivery.deliveryId !== null ? [`id:${delivery.deliveryId}`] : []), ...(delivery.bodyDigest !== null ? [`body:${delivery.bodyDigest}`] : [])];
}

/** Whether a verified delivery was accepted before, under its id or with the same body. */
export const isReplay = (state: AutoDeployState, delivery: Pick<WebhookDelivery, 'verdict' | 'deliveryId' | 'bodyDigest'>) =>
  replayKeys(delivery).some((key) => state.seenDeliveryIds.includes(key));

/** A verified delivery accepted before is recorded as `duplicate`, whatever it would have done. */
export function decideRecordDelivery(state: AutoDeployState, serviceId: string, delivery: WebhookDelivery): AutoDeployEvent[] {
  const recorded = isReplay(state, delivery) ? { ...delivery, verdict: 'duplicate', deploymentId: null } : delivery;
  return [{ type: 'WebhookDeliveryRecorded', data: { serviceId, ...recorded } }];
}

export function requireConfigured(state: AutoDeployState): { settings: AutoDeploySettings; secret: string } {
  if (!state.settings || !state.secret) throw invalid('serviceId', 'auto-deploy is not configured for this service');
  return { settings: state.settings, secret: state.secret };
}
