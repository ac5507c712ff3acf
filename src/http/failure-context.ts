import { lastDeploymentLogs, type DeploymentRow } from '../../projections/deployment-queries.js';
import type { ServiceRow } from '../../projections/service-queries.js';
import { boundLogLines, type FailureContext } from '../integrations/ai/explanation.js';
import { createRedactor, secretValues } from '../secrets/redactor.js';
import type { Slipway } from '../slipway.js';
import { loadProjectVariables } from '../variables/project-variables.js';

const LOG_LINES = 200;

/**
 * What an AI provider is told of a failed deployment: its last log lines, redacted once more with today's
 * secret values (a value may have changed since the run; a plain one, a user name or an image, stays readable), the build settings, and variable names only.
 */
export async function failureContextOf(app: Slipway, deployment: DeploymentRow, service: ServiceRow): Promise<FailureContext> {
  const project = await loadProjectVariables(app.db, app.keyring, service.project_id);
  const variables = project.variablesOf(service.id);
  const values = variables.map(({ row, value }) => ({ key: row.key, value, resolved: project.resolve(value) }));
  // A reference (`${db.DATABASE_URL}`) is no secret and names what failed to resolve; what it resolves to may be.
  const redact = createRedactor(secretValues(values).filter((text) => !text.includes('${')));
  const lines = (await lastDeploymentLogs(app.db, deployment.id, LOG_LINES)).map((row) => redact(row.line));
  return {
    deployment: { id: deployment.id, failureReason: deployment.reason === null ? null : redact(deployment.reason), detectedBuildMethod: deployment.build_method },
    service: {
      kind: service.kind,
      repoUrl: service.repo_url,
      dockerImage: service.docker_image,
      branch: service.branch,
      rootDir: service.root_dir,
      buildMethod: service.build_method,
      dockerfilePath: service.dockerfile_path,
      installCommand: service.install_command,
      buildCommand: service.build_command,
      startCommand: service.start_command,
      internalPort: service.internal_port,
      runtimeMode: service.runtime_mode,
      engine: service.database_engine,
    },
    variableNames: variables.map(({ row }) => row.key).sort(),
    logLines: boundLogLines(lines),
    imageSettings: await app.settings(),
  };
}
