import type { EnvRow } from '../../projections/service-queries.js';
import { listEnvOf, listServicesOf } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { Keyring } from '../secrets/keyring.js';
import { resolveReferences, servicesByReferenceName, type VariableLookup } from './references.js';

export interface PlainVariable {
  row: EnvRow;
  value: string;
}

/** Every variable of a project's services, decrypted, with a lookup for `${service.KEY}` references. */
export async function loadProjectVariables(db: SqlExecutor, keyring: Keyring, projectId: string) {
  const services = await listServicesOf(db, [projectId]);
  const rows = await listEnvOf(db, services.map((s) => s.id));
  const byService = new Map<string, PlainVariable[]>(services.map((s) => [s.id, []]));
  for (const row of rows) byService.get(row.service_id)?.push({ row, value: (await keyring.decrypt(row.value)) ?? '' });
  const byName = servicesByReferenceName(services);
  const lookup: VariableLookup = (service, key) => {
    const target = byName.get(service);
    return target ? byService.get(target.id)?.find((v) => v.row.key === key)?.value : undefined;
  };
  return {
    services,
    variablesOf: (serviceId: string) => byService.get(serviceId) ?? [],
    resolve: (value: string) => resolveReferences(value, lookup),
  };
}

/** A service's own variables with references resolved (an unresolvable reference stays as written). */
export async function resolvedVariablesOf(db: SqlExecutor, keyring: Keyring, service: { id: string; project_id: string }): Promise<Record<string, string>> {
  const variables = await loadProjectVariables(db, keyring, service.project_id);
  return Object.fromEntries(variables.variablesOf(service.id).map(({ row, value }) => [row.key, variables.resolve(value)]));
}
