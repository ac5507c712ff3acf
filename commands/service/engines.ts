import type { Engine } from './fields.js';

interface EngineSpec {
  label: string;
  port: number;
  scheme: string;
  /** Variables a new database service starts with; `ref(VAR)` refers to the service's own variable. */
  variables(slug: string, secret: () => string, ref: (key: string) => string): Record<string, string>;
  /** The variable other services reference to connect. */
  urlVariable: string;
}

const dbName = (slug: string) => slug.replace(/-/g, '_');
/** The official ClickHouse entrypoint creates CLICKHOUSE_DB unquoted: a name must not start with a digit. */
const clickhouseDbName = (slug: string) => (/^[0-9]/.test(slug) ? `db_${dbName(slug)}` : dbName(slug));

const postgres: EngineSpec = {
  label: 'Postgres',
  port: 5432,
  scheme: 'postgresql',
  urlVariable: 'DATABASE_URL',
  variables: (slug, secret, ref) => ({
    POSTGRES_USER: 'postgres',
    POSTGRES_PASSWORD: secret(),
    POSTGRES_DB: dbName(slug),
    DATABASE_URL: `postgresql://${ref('POSTGRES_USER')}:${ref('POSTGRES_PASSWORD')}@${slug}:5432/${ref('POSTGRES_DB')}`,
  }),
};

export const ENGINE_CATALOGUE: Record<Engine, EngineSpec> = {
  postgres,
  timeseries: { ...postgres, label: 'TimescaleDB' },
  mysql: {
    label: 'MySQL',
    port: 3306,
    scheme: 'mysql',
    urlVariable: 'DATABASE_URL',
    variables: (slug, secret, ref) => ({
      MYSQL_ROOT_PASSWORD: secret(),
      MYSQL_DATABASE: dbName(slug),
      MYSQL_USER: 'app',
      MYSQL_PASSWORD: secret(),
      DATABASE_URL: `mysql://${ref('MYSQL_USER')}:${ref('MYSQL_PASSWORD')}@${slug}:3306/${ref('MYSQL_DATABASE')}`,
    }),
  },
  redis: {
    label: 'Redis',
    port: 6379,
    scheme: 'redis',
    urlVariable: 'REDIS_URL',
    variables: (slug, secret, ref) => ({
      REDIS_PASSWORD: secret(),
      REDIS_URL: `redis://default:${ref('REDIS_PASSWORD')}@${slug}:6379`,
    }),
  },
  mongodb: {
    label: 'MongoDB',
    port: 27017,
    scheme: 'mongodb',
    urlVariable: 'MONGO_URL',
    variables: (slug, secret, ref) => ({
      MONGO_INITDB_ROOT_USERNAME: 'mongo',
      MONGO_INITDB_ROOT_PASSWORD: secret(),
      MONGO_URL: `mongodb://${ref('MONGO_INITDB_ROOT_USERNAME')}:${ref('MONGO_INITDB_ROOT_PASSWORD')}@${slug}:27017`,
    }),
  },
  columnar: {
    label: 'ClickHouse',
    port: 8123,
    scheme: 'http',
    urlVariable: 'CLICKHOUSE_URL',
    variables: (slug, secret, ref) => ({
      CLICKHOUSE_USER: 'default',
      CLICKHOUSE_PASSWORD: secret(),
      CLICKHOUSE_DB: clickhouseDbName(slug),
      CLICKHOUSE_URL: `http://${ref('CLICKHOUSE_USER')}:${ref('CLICKHOUSE_PASSWORD')}@${slug}:8123/${ref('CLICKHOUSE_DB')}`,
    }),
  },
};

/** Engine defaults overlaid with what the client gave, in a stable order. */
export function initialDatabaseVariables(
  engine: Engine,
  slug: string,
  given: { key: string; value: string }[],
  secret: () => string,
): { key: string; value: string }[] {
  const defaults = ENGINE_CATALOGUE[engine].variables(slug, secret, (key) => `\${${slug}.${key}}`);
  const merged = new Map(Object.entries(defaults));
  for (const { key, value } of given) merged.set(key, value);
  return [...merged].map(([key, value]) => ({ key, value }));
}
