import type { Aggregate } from '../shared/aggregate.js';
import { invalid, notFound } from '../shared/domain-error.js';
import { parseAutoDeployEvent, type AutoDeployEvent, type AutoDeploySettings, type WebhookDelivery } from './events.js';

/** How many deliveries `GET …/auto-deploy/deliveries` lists. */
export const DELIVERIES_KEPT = 100;
/** How many accepted delivery ids are remembered to answer a replay as a duplicate. */
export const DELIVERY_IDS_KEPT = 2000;

export interface AutoDeployState {
  projectId: string | null;
  settings: AutoDeploySettings | null;
  /** Sealed; null until first configured. */
  secret: string | null;
  /** Newest first. */
  deliveries: WebhookDelivery[];
  /** Ids of verified deliveries, oldest first. */
  seenDeliveryIds: string[];
  /** The deployment the latest accepted push queued: a newer push replaces it while it is still queued. */
  lastPushDeploymentId: string | null;
}

export const autoDeploy: Aggregate<AutoDeployState, AutoDeployEvent> = {
  category: 'autodeploy',
  initial: { projectId: null, settings: null, secret: null, deliveries: [], seenDeliveryIds: [], lastPushDeploymentId: null },
  evolve(state, event) {
    switch (event.type) {
      case 'AutoDeployConfigured': {
        const { serviceId: _s, projectId, ...settings } = event.data;
        return { ...state, projectId, settings };
      }
      case 'AutoDeploySecretRotated':
        return { ...state, secret: event.data.secret };
      case 'WebhookDeliveryRecorded': {
        const { serviceId: _s, ...delivery } = event.data;
        const verified = !delivery.verdict.startsWith('rejected:') && delivery.verdict !== 'duplicate';
        return {
          ...state,
          deliveries: [delivery, ...state.deliveries].slice(0, DELIVERIES_KEPT),
          seenDeliveryIds: verified && delivery.deliveryId !== null ? [...state.seenDeliveryIds, delivery.deliveryId].slice(-DELIVERY_IDS_KEPT) : state.seenDeliveryIds,
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

/** A verified delivery whose id was accepted before is recorded as `duplicate`, whatever it would have done. */
export function decideRecordDelivery(state: AutoDeployState, serviceId: string, delivery: WebhookDelivery): AutoDeployEvent[] {
  const verified = !delivery.verdict.startsWith('rejected:');
  const replay = verified && delivery.deliveryId !== null && state.seenDeliveryIds.includes(delivery.deliveryId);
  const recorded = replay ? { ...delivery, verdict: 'duplicate', deploymentId: null } : delivery;
  return [{ type: 'WebhookDeliveryRecorded', data: { serviceId, ...recorded } }];
}

export const isReplay = (state: AutoDeployState, deliveryId: string | null) => deliveryId !== null && state.seenDeliveryIds.includes(deliveryId);

export function requireConfigured(state: AutoDeployState): { settings: AutoDeploySettings; secret: string } {
  if (!state.settings || !state.secret) throw invalid('serviceId', 'auto-deploy is not configured for this service');
  return { settings: state.settings, secret: state.secret };
}
