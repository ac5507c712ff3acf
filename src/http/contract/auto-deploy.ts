import { z } from 'zod';
import { DEFAULT_SKIP_KEYWORDS, HOOK_PROVIDERS, SKIP_REASONS } from '../../../commands/auto-deploy/events.js';
import { branch } from '../validation.js';
import { endpoint } from './endpoint.js';
import { id, timestamp } from './common.js';

const base = '/api/services/:serviceId/auto-deploy';

const glob = z.string().min(1).max(1024);
const globs = z.array(glob).max(100);

const settingsInput = z
  .object({
    enabled: z.boolean(),
    provider: z.enum(HOOK_PROVIDERS).meta({ description: 'Whose signature scheme the hook route checks (gitea also takes Forgejo’s headers).' }),
    branch: branch.optional().meta({ description: 'The branch whose pushes deploy; default: the service’s branch (followed when it changes).' }),
    tagPattern: glob.nullable().optional().meta({ description: 'A glob: a pushed tag whose name matches it deploys; default null (tags never deploy).' }),
    watchPaths: globs.optional().meta({ description: 'Globs: when set, a push deploys only if it touched a file matching one. Default [].' }),
    ignorePaths: globs.optional().meta({ description: 'Globs: a push that touched only files matching these deploys nothing. Default [].' }),
    skipKeywords: z.array(z.string().min(1).max(100)).max(50).optional().meta({ description: `A head commit message containing one (any case) deploys nothing. Default ${JSON.stringify(DEFAULT_SKIP_KEYWORDS)}.` }),
  })
  .strict();

export const autoDeploySettings = z
  .object({
    serviceId: id,
    enabled: z.boolean(),
    provider: z.enum(HOOK_PROVIDERS),
    branch: z.string().meta({ description: 'The branch whose pushes deploy (the service’s own unless set).' }),
    followsServiceBranch: z.boolean(),
    tagPattern: z.string().nullable(),
    watchPaths: z.array(z.string()),
    ignorePaths: z.array(z.string()),
    skipKeywords: z.array(z.string()),
    webhookUrl: z.string().meta({ description: 'Where the Git host sends its deliveries: `<API address>/api/hooks/<serviceId>/<provider>`.' }),
    webhookWarning: z.string().nullable().meta({ description: 'Why no Git host can reach `webhookUrl` (it is on loopback or `localhost`: set the `apiDomain` setting), or null.' }),
  })
  .meta({ id: 'AutoDeploySettings' });

const withSecret = autoDeploySettings.extend({
  secret: z.string().optional().meta({
    description:
      'The signing secret (64 hex characters), shown only by the save that created it and by `rotate-secret`. Give it to the Git host as the webhook secret (GitLab: as the secret token; for a Standard Webhooks signing token, `whsec_` followed by the base64 of this text).',
  }),
});

export const webhookDelivery = z
  .object({
    at: timestamp,
    provider: z.enum(HOOK_PROVIDERS),
    event: z.string().nullable(),
    deliveryId: z.string().nullable(),
    commitSha: z.string().nullable(),
    verdict: z.string().meta({ description: '`deployed`, `skipped:<why>`, `rejected:<why>` (`signature`, `stale`, `provider`, `malformed`), `duplicate` or `pong`.' }),
    deploymentId: id.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const autoDeployApi = {
  get: endpoint({
    method: 'get',
    path: base,
    operationId: 'getAutoDeploy',
    tag: 'Auto-deploy',
    summary: 'A source service’s auto-deploy settings (never the secret)',
    access: 'read',
    response: z.object({ autoDeploy: autoDeploySettings.nullable().meta({ description: 'Null until first saved.' }) }),
  }),
  put: endpoint({
    method: 'put',
    path: base,
    operationId: 'putAutoDeploy',
    tag: 'Auto-deploy',
    summary: 'Save a source service’s auto-deploy settings',
    description: 'Fields not given take their defaults. The first save makes the signing secret and answers it, once.',
    access: 'write',
    body: settingsInput,
    response: z.object({ autoDeploy: withSecret }),
  }),
  rotateSecret: endpoint({
    method: 'post',
    path: `${base}/rotate-secret`,
    operationId: 'rotateAutoDeploySecret',
    tag: 'Auto-deploy',
    summary: 'Replace the signing secret; deliveries signed with the old one are refused from now on',
    access: 'write',
    response: z.object({ autoDeploy: withSecret.required({ secret: true }) }),
  }),
  deliveries: endpoint({
    method: 'get',
    path: `${base}/deliveries`,
    operationId: 'listWebhookDeliveries',
    tag: 'Auto-deploy',
    summary: 'The last 100 deliveries to the service’s hook route, newest first, rejected ones included',
    access: 'read',
    response: z.object({ deliveries: z.array(webhookDelivery) }),
  }),
  hook: endpoint({
    method: 'post',
    path: '/api/hooks/:serviceId/:provider',
    operationId: 'receiveWebhook',
    tag: 'Auto-deploy',
    summary: 'A Git host’s webhook delivery',
    description:
      'Authenticated by the provider’s signature over the raw body (up to 25 MB), checked before the body is parsed: github `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`; gitea `X-Gitea-Signature` or `X-Forgejo-Signature` (hex HMAC-SHA256); gitlab `X-Gitlab-Token` equal to the secret, or Standard Webhooks `webhook-signature: v1,<base64>` over `<webhook-id>.<webhook-timestamp>.<body>`; bitbucket `X-Hub-Signature: sha256=<hex>`; generic `X-Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, refused when `t` is more than 5 minutes away. A delivery whose signature does not verify, to a service id that does not exist or has no auto-deploy, is answered 401 (all alike) and counts toward limits of refused deliveries per address and per service (then 429); a correctly signed delivery is never refused by them. At most 2 bodies per service are received at once (a third gets 503); a body must keep coming (10 s without a byte, or 30 s in all: 408). A push to the branch (or a tag matching `tagPattern`) queues a deployment of exactly the pushed commit (202); a delivery whose id or body was accepted in the last 30 days, or whose body queued a deployment before, is answered `{ duplicate: true }`; a ping `{ pong: true }`; anything else `{ skipped: <why> }`. A push that arrives while the previous pushed deployment is still queued replaces it (that one ends `canceled`, naming the newer commit).',
    access: 'public',
    headers: z.object({
      'X-Hub-Signature-256': z.string().optional().meta({ description: 'github' }),
      'X-GitHub-Event': z.string().optional().meta({ description: 'github: `push` or `ping`' }),
      'X-GitHub-Delivery': z.string().optional().meta({ description: 'github' }),
      'X-Gitea-Signature': z.string().optional().meta({ description: 'gitea' }),
      'X-Forgejo-Signature': z.string().optional().meta({ description: 'gitea (Forgejo)' }),
      'X-Gitea-Event': z.string().optional().meta({ description: 'gitea' }),
      'X-Gitea-Delivery': z.string().optional().meta({ description: 'gitea' }),
      'X-Gitlab-Token': z.string().optional().meta({ description: 'gitlab: the secret itself' }),
      'X-Gitlab-Event': z.string().optional().meta({ description: 'gitlab: `Push Hook` or `Tag Push Hook`' }),
      'X-Gitlab-Event-UUID': z.string().optional().meta({ description: 'gitlab' }),
      'webhook-id': z.string().optional().meta({ description: 'Standard Webhooks (gitlab)' }),
      'webhook-timestamp': z.string().optional().meta({ description: 'Standard Webhooks (gitlab)' }),
      'webhook-signature': z.string().optional().meta({ description: 'Standard Webhooks (gitlab): `v1,<base64>`' }),
      'X-Hub-Signature': z.string().optional().meta({ description: 'bitbucket: `sha256=<hex>`' }),
      'X-Event-Key': z.string().optional().meta({ description: 'bitbucket: `repo:push` or `diagnostics:ping`' }),
      'X-Request-UUID': z.string().optional().meta({ description: 'bitbucket' }),
      'X-Slipway-Signature': z.string().optional().meta({ description: 'generic: `t=<unix seconds>,v1=<hex>`' }),
    }),
    body: z.record(z.string(), z.unknown()).meta({ description: 'The provider’s own payload (generic: `{ id, event?: "push" | "ping", ref, after, commits?: [{ id, message, added, modified, removed }] }`).' }),
    response: z.union([
      z.object({ duplicate: z.literal(true) }),
      z.object({ pong: z.literal(true) }),
      z.object({ skipped: z.enum(SKIP_REASONS) }),
    ]),
    acceptedResponse: z.object({ deploymentId: id }),
    errors: [400, 401, 408, 413, 429, 503],
  }),
};
