import type { SqlExecutor } from '../src/db/sql-client.js';
import type { ResourceSettings } from '../commands/service/resources.js';
import type { ImageSettingName } from '../src/installation-images.js';
import type { GeneralSettingsChange } from '../commands/settings/events.js';

export interface RemoteStorageRow {
  endpoint: string;
  region: string;
  bucket: string;
  access_key_id: string;
  prefix: string;
  force_path_style: boolean;
  connected_at: Date | string;
}

export async function findRemoteStorage(db: SqlExecutor): Promise<RemoteStorageRow | null> {
  const { rows } = await db.query<RemoteStorageRow>('select * from rm_remote_storage where id = 1');
  return rows[0] ?? null;
}

/** The column of each image setting (`packNodeImage` …); null: the environment's default. */
export const IMAGE_COLUMNS = {
  packNodeImage: 'pack_node_image',
  packPythonImage: 'pack_python_image',
  packGoImage: 'pack_go_image',
  packRunImage: 'pack_run_image',
  packStaticImage: 'pack_static_image',
  dbImagePostgres: 'db_image_postgres',
  dbImageTimeseries: 'db_image_timeseries',
  dbImageMysql: 'db_image_mysql',
  dbImageRedis: 'db_image_redis',
  dbImageMongodb: 'db_image_mongodb',
  dbImageColumnar: 'db_image_columnar',
} as const satisfies Record<ImageSettingName, string>;

/** The column of each general setting, images included: the one map the projector and the readers share. */
export const GENERAL_COLUMNS = {
  rootDomain: 'root_domain',
  publicIp: 'public_ip',
  acmeEmail: 'acme_email',
  acmeDirectoryUrl: 'acme_directory_url',
  httpsEnabled: 'https_enabled',
  allowedDestinations: 'allowed_destinations',
  denyPrivateDestinations: 'deny_private_destinations',
  apiDomain: 'api_domain',
  defaultResources: 'default_resources',
  sessionIdleMinutes: 'session_idle_minutes',
  sessionMaxHours: 'session_max_hours',
  requireTwoFactor: 'require_two_factor',
  ...IMAGE_COLUMNS,
} as const satisfies Record<keyof GeneralSettingsChange, keyof GeneralSettingsRow>;

type ImageColumns = { [K in ImageSettingName as (typeof IMAGE_COLUMNS)[K]]: string | null };

export interface GeneralSettingsRow extends ImageColumns {
  root_domain: string | null;
  public_ip: string | null;
  acme_email: string | null;
  acme_directory_url: string | null;
  https_enabled: boolean | null;
  allowed_destinations: string[] | null;
  deny_private_destinations: boolean | null;
  api_domain: string | null;
  default_resources: ResourceSettings | null;
  session_idle_minutes: number | null;
  session_max_hours: number | null;
  require_two_factor: boolean | null;
}

/** What was set through the API; null columns fall back to the environment. */
export async function findGeneralSettings(db: SqlExecutor): Promise<GeneralSettingsRow | null> {
  const { rows } = await db.query<GeneralSettingsRow>(`select ${Object.values(GENERAL_COLUMNS).join(', ')} from rm_general_settings where id = 1`);
  return rows[0] ?? null;
}

export interface DnsProviderRow {
  provider_id: string;
  visible: Record<string, string>;
  zones: string[];
  connected_at: Date | string;
}

export async function listDnsProviders(db: SqlExecutor): Promise<DnsProviderRow[]> {
  return (await db.query<DnsProviderRow>('select * from rm_dns_providers order by provider_id')).rows;
}

export interface AiProviderRow {
  provider_id: string;
  base_url: string | null;
  has_api_key: boolean;
  default_model: string | null;
  models: string[];
  connected_at: Date | string;
}

export async function listAiProviders(db: SqlExecutor): Promise<AiProviderRow[]> {
  return (await db.query<AiProviderRow>('select * from rm_ai_providers order by provider_id')).rows;
}
