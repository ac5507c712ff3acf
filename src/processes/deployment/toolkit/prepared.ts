import { service as serviceAggregate } from '../../../../commands/service/aggregate.js';
import { loadAggregate } from '../../../../commands/shared/execute.js';
import { findService, type ServiceRow } from '../../../../projections/service-queries.js';
import { secretValues } from '../../../secrets/redactor.js';
import { loadProjectVariables } from '../../../variables/project-variables.js';
import { unresolvedReferences } from '../../../variables/references.js';
import type { RunDeps } from './run-deps.js';
import { DeployFailure } from './run-step.js';

/** The service as a run starts it: its row, today's variables resolved, and the values to redact from its log. */
export interface Prepared {
  row: ServiceRow;
  env: Record<string, string>;
  gitToken: string | null;
  secrets: string[];
}

export async function prepare(deps: RunDeps, serviceId: string): Promise<Prepared> {
  const { state } = await loadAggregate(deps.cmd, serviceAggregate, serviceId);
  const row = await findService(deps.db, serviceId);
  if (state.status !== 'live' || !state.service || !row) throw new DeployFailure('the service was deleted');
  const variables = await loadProjectVariables(deps.db, deps.keyring, row.project_id);
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const { row: variable, value } of variables.variablesOf(serviceId)) {
    const resolved = variables.resolve(value);
    const missing = unresolvedReferences(resolved);
    if (missing.length > 0) {
      throw new DeployFailure(
        `variable ${variable.key} refers to ${missing.join(', ')}, which no service of this project defines; set that variable or fix the reference`,
      );
    }
    env[variable.key] = resolved;
    secrets.push(...secretValues([{ key: variable.key, value, resolved }]));
  }
  env.PORT ??= String(row.internal_port);
  const gitToken = state.service.gitToken ? await deps.keyring.decrypt(state.service.gitToken) : null;
  if (gitToken) secrets.push(gitToken);
  return { row, env, gitToken, secrets };
}
