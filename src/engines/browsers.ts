import type { Engine } from '../shared/database-engine.js';
import type { DatabaseBrowser, EngineEndpoint } from './browser.js';

/**
 * The browser of an engine. Drivers load on first use: an installation that never opens a MongoDB or
 * ClickHouse database does not pay their memory.
 */
export async function createBrowser(engine: Engine, endpoint: EngineEndpoint): Promise<DatabaseBrowser> {
  switch (engine) {
    case 'postgres':
    case 'timeseries':
      return (await import('./postgres-browser.js')).createPostgresBrowser(endpoint, engine);
    case 'mysql':
      return (await import('./mysql-browser.js')).createMysqlBrowser(endpoint);
    case 'redis':
      return (await import('./redis-browser.js')).createRedisBrowser(endpoint);
    case 'columnar':
      return (await import('./clickhouse-browser.js')).createClickhouseBrowser(endpoint);
    case 'mongodb':
      return (await import('./mongodb-browser.js')).createMongoBrowser(endpoint);
  }
}
