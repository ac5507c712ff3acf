import type { DeploymentRequest } from '../../../../commands/deployment/aggregate.js';
import { argvOf } from '../../../../commands/shared/command-line.js';
import { LABEL } from '../../../runtime/container-runtime.js';
import { runToEnd } from '../../../runtime/run-to-end.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { networkOf, overlayOf } from '../toolkit/run-names.js';
import { DeployFailure } from '../toolkit/run-step.js';
import { resourcesOfRun } from '../toolkit/service-resources.js';
import type { RunPlan } from './release-run.js';

const LAST_LINES = 20;

/** The release command's container: the deployment's id makes it idempotent and lets leftovers find it. */
export const releaseCommandContainerOf = (deploymentId: string) => `slipway-release-${deploymentId}`;

/**
 * Whether this deployment runs the service's release command: every one that builds or changes the image
 * (`deploy`: a build or an image), a rollback only with `releaseCommandOnRollback` (an old migration must not run
 * again), never a restart, start, config change or move (the image does not change).
 */
export function runsReleaseCommand(p: Prepared, request: Pick<DeploymentRequest, 'kind'>): boolean {
  if (p.row.release_command === null || p.row.release_command === undefined) return false;
  if (request.kind === 'deploy') return true;
  return request.kind === 'rollback' && p.row.release_command_on_rollback === true;
}

/**
 * Heroku's release phase: the service's release command, once, in a container of the new image with the new
 * variables, after the build and before anything of the new release is started or switched to. Its output goes to
 * the deployment's log (redacted like the rest); a non-zero exit, a timeout or an abort fails the deployment with
 * the command's last lines, and the previous release keeps serving. Its container is removed either way.
 */
export async function runReleaseCommand(deps: RunDeps, id: string, p: Prepared, plan: RunPlan, request: Pick<DeploymentRequest, 'kind'>, log: DeploymentLog, signal: AbortSignal): Promise<void> {
  if (!runsReleaseCommand(p, request)) return;
  const { row } = p;
  const command = argvOf(row.release_command!);
  const name = releaseCommandContainerOf(id);
  const cluster = await deps.cluster?.();
  const network = cluster ? overlayOf(row.project_id) : networkOf(row.project_id);
  if (!cluster) await deps.runtime.ensureNetwork(network, { [LABEL.project]: row.project_id });
  const { limits } = await resourcesOfRun(plan.resources, deps.defaultResources);
  const timeoutMs = deps.settings.timeouts.releaseCommandMs;
  log.system(`Running the release command ${JSON.stringify(command)} in the new image, before it takes traffic`);
  await log.flush();
  try {
    const result = await runToEnd(
      deps.runtime,
      {
        name,
        image: plan.image,
        env: plan.env,
        labels: { [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id },
        network,
        aliases: [],
        internalPort: null,
        publish: false,
        command,
        privileges: 'app',
        limits,
      },
      { onLine: (line) => log.write(line.line, line.stream), timeoutMs, signal, graceSeconds: deps.settings.timeouts.stopGraceSeconds, keepLines: LAST_LINES },
    ).catch((error: unknown) => {
      if (signal.aborted) throw error;
      throw new DeployFailure(`the release command could not be started: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (result.outcome === 'canceled') throw signal.reason ?? new Error('aborted');
    if (result.outcome === 'timed_out') throw new DeployFailure(`the release command did not finish within ${Math.round(timeoutMs / 1000)} s; nothing was switched`);
    if (result.exitCode !== 0) {
      // Redacted as the log's lines are: a secret the command printed stays out of the reason too.
      const lines = result.lastLines.map((l) => log.redacted(l));
      throw new DeployFailure(`the release command exited with code ${result.exitCode ?? 'unknown'}; nothing was switched${lines.length ? `:\n${lines.join('\n')}` : ''}`);
    }
    log.system(`The release command succeeded in ${result.durationMs} ms`);
  } finally {
    await deps.runtime.remove(name, 0).catch(() => undefined);
  }
}

