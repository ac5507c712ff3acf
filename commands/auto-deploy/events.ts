import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const HOOK_PROVIDERS = ['github', 'gitlab', 'gitea', 'bitbucket', 'generic'] as const;
export type HookProvider = (typeof HOOK_PROVIDERS)[number];

export const DEFAULT_SKIP_KEYWORDS = ['[skip ci]', '[ci skip]', '[skip deploy]'];

export const SKIP_REASONS = ['branch', 'tag', 'paths', 'keyword', 'disabled', 'event'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** What became of a delivery: `deployed`, `skipped:<why>`, `rejected:<why>`, `duplicate`, `pong`. */
export const deliveryVerdict = z.string().regex(/^(deployed|duplicate|pong|skipped:[a-z]+|rejected:[a-z_]+)$/);

export const autoDeploySettingsFields = {
  enabled: z.boolean(),
  provider: z.enum(HOOK_PROVIDERS),
  /** null: the service's branch, whatever it is when a push arrives. */
  branch: z.string().nullable(),
  tagPattern: z.string().nullable(),
  watchPaths: z.array(z.string()),
  ignorePaths: z.array(z.string()),
  skipKeywords: z.array(z.string()),
};

/** A service's auto-deploy settings and its webhook deliveries (`autodeploy-<serviceId>`). */
export const autoDeployEvents = {
  AutoDeployConfigured: z.object({ serviceId: z.string(), projectId: z.string(), ...autoDeploySettingsFields }),
  /** `secret` is sealed with the service's data key. */
  AutoDeploySecretRotated: z.object({ serviceId: z.string(), secret: z.string() }),
  /** A delivery to the hook route, accepted or not: an auditor sees probing too. */
  WebhookDeliveryRecorded: z.object({
    serviceId: z.string(),
    provider: z.enum(HOOK_PROVIDERS),
    event: z.string().nullable(),
    /** Null when the delivery named none, or when it was rejected before its claims could be trusted. */
    deliveryId: z.string().nullable(),
    /**
     * sha256 of a verified body: GitHub, Gitea, Bitbucket and GitLab's token sign the body but not the delivery
     * id header, so a captured body sent again under a new id is a replay all the same.
     */
    bodyDigest: z.string().nullable(),
    commitSha: z.string().nullable(),
    verdict: deliveryVerdict,
    deploymentId: z.string().nullable(),
    at: z.string(),
  }),
};
export type AutoDeployEvent = EventsOf<typeof autoDeployEvents>;
export const parseAutoDeployEvent = eventParser(autoDeployEvents);
export type AutoDeploySettings = Omit<Extract<AutoDeployEvent, { type: 'AutoDeployConfigured' }>['data'], 'serviceId' | 'projectId'>;
export type WebhookDelivery = Omit<Extract<AutoDeployEvent, { type: 'WebhookDeliveryRecorded' }>['data'], 'serviceId'>;
/** A delivery as listed: its body's digest is for replay checks only. */
export type ListedDelivery = Omit<WebhookDelivery, 'bodyDigest'>;
