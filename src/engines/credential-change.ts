import type { Engine } from '../shared/database-engine.js';
import { conflict } from '../../commands/shared/domain-error.js';
import { findService } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Certificates } from './certificates.js';
import { resolvedVariablesOf } from '../variables/project-variables.js';
import { BrowserError } from './browser.js';
import { createRemoteBrowser } from './remote-browser.js';
import { endpointOf, INIT_ONLY_CREDENTIALS } from './engine-plans.js';

const INIT_ONLY_KEYS = new Set(Object.values(INIT_ONLY_CREDENTIALS).flat());

/**
 * The official images read their user and password variables only when they initialise an empty data
 * directory. Once a database service has run, a new value for one of them is accepted only if the running
 * engine already accepts it (changed inside the engine first, e.g. `ALTER USER … PASSWORD` through the SQL
 * console); otherwise the variable would no longer say how to connect. Before the first deployment any value goes.
 */
export interface CredentialChangeDeps {
  db: SqlExecutor;
  keyring: Keyring;
  certificates: Pick<Certificates, 'trustedAuthority'>;
  /** The port Slipway dials for the port a database publishes on its node (the cluster's NodeHosts.port). */
  nodes: { port(nodeId: string | null, hostPort: number): Promise<number> };
}

export async function checkCredentialChange(app: CredentialChangeDeps, serviceId: string, key: string, value: string): Promise<void> {
  if (!INIT_ONLY_KEYS.has(key)) return;
  const row = await findService(app.db, serviceId);
  if (!row || row.kind !== 'database' || !row.database_engine) return;
  const engine = row.database_engine as Engine;
  if (!INIT_ONLY_CREDENTIALS[engine].includes(key) || row.last_deployed_at === null) return;
  const env = await resolvedVariablesOf(app.db, app.keyring, row);
  if (env[key] === value) return;
  const how = `${key} was used when the database was initialised and the engine keeps what it was created with: change it inside the engine first (for example ALTER USER through POST /api/services/${serviceId}/database/query), then set the variable`;
  if (!row.current_container) throw conflict(`the database is not running, so the new ${key} cannot be checked. ${how}`);
  const ca = engine === 'postgres' || engine === 'timeseries' ? await app.certificates.trustedAuthority(row) : null;
  const browser = await createRemoteBrowser(engine, endpointOf(engine, { ...env, [key]: value }, await app.nodes.port(row.node_id, row.host_port), ca));
  try {
    await browser.ping();
  } catch (error) {
    if (error instanceof BrowserError) throw conflict(`the database does not accept the new ${key} (${error.message}). ${how}`);
    throw error;
  } finally {
    await browser.close().catch(() => undefined);
  }
}
