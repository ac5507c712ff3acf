import { ENGINE_CATALOGUE } from '../../commands/service/engines.js';
import { ENGINES, type Engine } from '../shared/database-engine.js';

const isEngine = (name: string): name is Engine => (ENGINES as readonly string[]).includes(name);

/**
 * The variables a database service is made with (commands/service/engines.ts): its engine reads them when it
 * starts, and other services connect with them (`${db.DATABASE_URL}`). Null for a service that is no database.
 */
export function engineVariables(engine: string | null): { label: string; keys: ReadonlySet<string> } | null {
  if (engine === null || !isEngine(engine)) return null;
  const spec = ENGINE_CATALOGUE[engine];
  return { label: spec.label, keys: new Set(Object.keys(spec.variables('db', () => '', (key) => key))) };
}
