import { isIP } from 'node:net';
import { z } from 'zod';
import { baseUrl } from '../../outbound/base-url.js';
import { allowedDestinationsSchema } from '../../outbound/destination-entries.js';
import { IMAGE_SETTINGS, IMAGE_SETTING_NAMES, type ImageSettingName } from '../../installation-images.js';
import { hostname } from '../../shared/hostname.js';
import { imageReference, text } from '../validation.js';
import { resourcesAnswer, resourcesBody } from '../resource-bodies.js';
import { aiProvider } from './ai-providers.js';
import { okBody, proxyResult, timestamp } from './common.js';
import { dnsProvider } from './dns-providers.js';
import { endpoint } from './endpoint.js';

const remoteStorageBody = z
  .object({
    endpoint: baseUrl,
    region: text(64).trim().min(1, 'must not be empty'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3-63 lowercase letters, digits, dots and hyphens'),
    accessKeyId: text(256).trim().min(1, 'must not be empty'),
    secretAccessKey: z.string().min(1, 'must not be empty').max(1024),
    prefix: text(512)
      .regex(/^[^\\]*$/, 'must not contain backslashes')
      .transform((p) => p.replace(/^\/+|\/+$/g, ''))
      .default(''),
    forcePathStyle: z.boolean().default(false),
  })
  .strict();

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

const eachImageSetting = <T extends z.ZodType>(schema: (name: ImageSettingName) => T) =>
  Object.fromEntries(IMAGE_SETTING_NAMES.map((name) => [name, schema(name)])) as Record<ImageSettingName, T>;

const imageSettingBodies = eachImageSetting((name) =>
  nullable(imageReference).meta({
    description: `The image ${name.startsWith('pack') ? 'packbuilder builds use' : 'database services of this engine run'} from their next deployment on (default: \`${IMAGE_SETTINGS[name]}\`); its registry must be a destination the outbound policy allows (400 \`forbidden_destination\`).`,
  }),
);

/** Each general setting; null puts back the environment's default. */
const generalSettingsBody = z
  .object({
    rootDomain: nullable(hostname),
    publicIp: nullable(z.string().refine((ip) => isIP(ip) !== 0, 'must be an IPv4 or IPv6 address')),
    acmeEmail: nullable(z.string().email().max(254)),
    acmeDirectoryUrl: nullable(z.string().url().refine((u) => u.startsWith('https://'), 'must be an https URL (ACME requires TLS)').max(2048)),
    httpsEnabled: nullable(z.boolean()),
    allowedDestinations: nullable(allowedDestinationsSchema).meta({
      description: 'Networks, each with an optional port, that outbound connections made for a key may reach although the policy refuses them (loopback, link-local, this host, Docker networks, private ranges when denied): `127.0.0.1:3000`, `127.0.0.0/8`, `[::1]:8080`, `::1`, `10.0.0.0/8`.',
    }),
    denyPrivateDestinations: nullable(z.boolean()).meta({ description: 'Refuse private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) too.' }),
    apiDomain: nullable(hostname).meta({
      description: 'Serve the API on this name through Caddy, with HTTPS when `httpsEnabled` (a certificate from the ACME directory, HSTS). Point its DNS record at this server; no service may use the name.',
    }),
    sessionIdleMinutes: nullable(z.number().int().min(1).max(43_200)).meta({
      description: 'A dashboard session (`POST /api/sessions`) ends after this many minutes without a request (default 60; at most 30 days).',
    }),
    sessionMaxHours: nullable(z.number().int().min(1).max(720)).meta({
      description: 'A dashboard session ends this many hours after its sign-in, however active it is (default 12; at most 30 days).',
    }),
    requireTwoFactor: nullable(z.boolean()).meta({
      description: 'Every person must turn on two factors: until they do, their sessions and keys reach only `GET /api/users/me`, the two-factor set-up and sign-out (403 `two_factor_setup_required`).',
    }),
    defaultResources: nullable(resourcesBody).meta({
      description: 'Limits of every service that does not set them itself, key by key (a service’s own `null` still means no limit). Applies at each service’s next deployment.',
    }),
    ...imageSettingBodies,
  })
  .strict()
  .refine((body) => Object.values(body).some((v) => v !== undefined), 'give at least one setting to change')
  .meta({ description: 'The settings to change (at least one); null puts back the environment’s default.' });

const source = z.enum(['settings', 'environment']);

export const settings = z
  .object({
    rootDomain: z.string().nullable().meta({ description: 'The domain a database service’s public host name is made under when none is given; null: none.' }),
    publicIp: z.string(),
    acmeEmail: z.string().nullable(),
    acmeDirectoryUrl: z.string(),
    httpsEnabled: z.boolean(),
    allowedDestinations: z
      .array(z.string())
      .optional()
      .meta({ description: 'Destinations outbound connections made for a key may reach although the policy would refuse them. Shown to all-project keys only.' }),
    denyPrivateDestinations: z.boolean(),
    apiDomain: z.string().nullable().meta({ description: 'The name the API is served on through Caddy; null: only on `SLIPWAY_HOST`.' }),
    defaultResources: resourcesAnswer,
    sessionIdleMinutes: z.number().int(),
    sessionMaxHours: z.number().int(),
    requireTwoFactor: z.boolean(),
    ...eachImageSetting(() => z.string()),
    sources: z
      .object({
        rootDomain: source,
        publicIp: source,
        acmeEmail: source,
        acmeDirectoryUrl: source,
        httpsEnabled: source,
        allowedDestinations: source,
        denyPrivateDestinations: source,
        apiDomain: source,
        defaultResources: source,
        sessionIdleMinutes: source,
        sessionMaxHours: source,
        requireTwoFactor: source,
        ...eachImageSetting(() => source),
      })
      .meta({ description: 'Where each general setting comes from: set through this API, or the environment’s default.' }),
    proxy: z.object({ mode: z.enum(['caddy', 'off']), httpPort: z.number().int(), httpsPort: z.number().int() }),
    dnsProviders: z.array(dnsProvider),
    aiProviders: z.array(aiProvider),
    remoteStorage: z
      .union([
        z.object({ connected: z.literal(false) }),
        z.object({ connected: z.literal(true) }).meta({ description: 'What a key scoped to some projects sees of a connected storage.' }),
        z.object({
          connected: z.literal(true),
          endpoint: z.string(),
          region: z.string(),
          bucket: z.string(),
          accessKeyId: z.string().meta({ description: 'The access key id, shown in full: it names the key, it is not the secret.' }),
          secretAccessKeySet: z.literal(true).meta({ description: 'The secret access key is kept, encrypted; it is never shown.' }),
          prefix: z.string(),
          forcePathStyle: z.boolean(),
          connectedAt: timestamp,
        }),
      ])
      .meta({ id: 'RemoteStorage', description: 'The S3-compatible storage backups are copied to; its endpoint, bucket and access key id are shown to all-project keys only.' }),
    backups: z.object({ hourUtc: z.number().int().meta({ description: 'The UTC hour scheduled backups run at.' }) }),
  })
  .meta({
    id: 'Settings',
    description: 'The installation’s settings: never a secret. A key scoped to some projects does not see where the remote storage, the AI providers and PowerDNS are (endpoint, bucket, access key id, base URLs).',
  });

const remoteAnswer = <C extends boolean>(connected: C) => okBody.extend({ remote: z.object({ connected: z.literal(connected) }) });

export const settingsApi = {
  get: endpoint({
    method: 'get',
    path: '/api/settings',
    operationId: 'getSettings',
    tag: 'Settings',
    summary: 'The installation’s settings, DNS and AI providers and remote storage (never a secret)',
    access: 'read',
    response: z.object({ settings }),
  }),
  update: endpoint({
    method: 'patch',
    path: '/api/settings',
    operationId: 'updateSettings',
    tag: 'Settings',
    summary: 'Change general settings (root domain, public IP, ACME, HTTPS, outbound destinations, images); the proxy is given them at once',
    access: 'write',
    allProjects: true,
    body: generalSettingsBody,
    response: okBody.extend({ settings, proxy: proxyResult }),
  }),
  connectRemoteStorage: endpoint({
    method: 'put',
    path: '/api/settings/remote-storage',
    operationId: 'connectRemoteStorage',
    tag: 'Settings',
    summary: 'Connect S3-compatible remote storage for backups; saved only once a probe object was written, read back and deleted',
    access: 'write',
    allProjects: true,
    body: remoteStorageBody,
    response: remoteAnswer(true),
  }),
  disconnectRemoteStorage: endpoint({
    method: 'delete',
    path: '/api/settings/remote-storage',
    operationId: 'disconnectRemoteStorage',
    tag: 'Settings',
    summary: 'Disconnect the remote storage (404 when none is connected)',
    access: 'write',
    allProjects: true,
    response: remoteAnswer(false),
    errors: [404],
  }),
};
