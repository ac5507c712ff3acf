import type Router from '@koa/router';
import { cancelJobRun, requestJobRun } from '../../../commands/job-run/handlers.js';
import { argvOf } from '../../../commands/shared/command-line.js';
import { newId } from '../../../commands/shared/ids.js';
import { countActiveJobRunsOfService, findJobRun, isActive, listJobRunLogs, listJobRuns, type JobRunRow } from '../../../projections/job-run-queries.js';
import { findService, type ServiceRow } from '../../../projections/service-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { Slipway } from '../../slipway.js';
import { isId, principalOf, requireReach, visibleService, writerOf } from '../auth.js';
import { DEFAULT_RUN_TIMEOUT_SECONDS, jobRunsApi } from '../contract/job-runs.js';
import { route } from '../contract/endpoint.js';
import { HttpError, notFoundHttp } from '../errors.js';
import { presentJobRun, presentJobRunLog } from '../job-run-answers.js';
import type { Principal } from '../principals.js';
import { requestContext } from '../request-context.js';
import { streamLog } from '../log-stream.js';
import { parseInput } from '../validation.js';

/** One-off commands and job runs of one service that may wait or run at once: a key cannot queue without end. */
export const MAX_ACTIVE_RUNS_PER_SERVICE = 20;

/** A run is visible through its service's current project; a deleted service's runs are gone for clients. */
async function visibleJobRun(db: SqlExecutor, principal: Principal, id: string): Promise<{ run: JobRunRow; service: ServiceRow }> {
  const run = isId(id) ? await findJobRun(db, id) : null;
  const service = run ? await findService(db, run.service_id) : null;
  if (!run || !service) throw notFoundHttp('job run');
  requireReach(principal, service.project_id, 'job run');
  return { run, service };
}

/** Why the service cannot run a command now (409), or null. The job runner checks again when it takes the run. */
export function cannotRun(service: ServiceRow): string | null {
  if (service.kind === 'database') return 'a database service runs no commands: run them in a service that uses it';
  if (service.status === 'stopped') return 'the service is stopped: start it first (its commands run its current release)';
  if (service.current_deployment_id === null) return 'the service has no release yet: deploy it first';
  return null;
}

/** The run as its request left it: queued, even when the runner took it before the read model was read. */
const asRequested = (run: JobRunRow): JobRunRow => ({ ...run, status: 'queued', exit_code: null, duration_ms: null, reason: null, container_name: null, release_version: null, started_at: null, finished_at: null });

export function jobRunRoutes(router: Router, app: Slipway) {
  route(router, jobRunsApi.create, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const body = parseInput(jobRunsApi.create.body, ctx.request.body ?? {});
    const refused = cannotRun(service);
    if (refused) throw new HttpError(409, 'conflict', refused);
    if ((await countActiveJobRunsOfService(app.db, service.id)) >= MAX_ACTIVE_RUNS_PER_SERVICE) {
      throw new HttpError(409, 'conflict', `the service has ${MAX_ACTIVE_RUNS_PER_SERVICE} runs queued or running: wait for some to end, or cancel them`);
    }
    const cmd = requestContext(app, ctx, principal);
    const runId = newId(cmd, 'jobrun');
    const { position } = await requestJobRun(cmd, runId, {
      serviceId: service.id,
      projectId: service.project_id,
      jobId: null,
      jobName: null,
      command: argvOf(body.command),
      timeoutSeconds: body.timeoutSeconds ?? DEFAULT_RUN_TIMEOUT_SECONDS,
      trigger: 'one-off',
      dueAt: null,
      lateMs: null,
    });
    await app.settle(position);
    const row = await findJobRun(app.db, runId);
    if (!row) throw notFoundHttp('job run');
    ctx.body = { run: presentJobRun(asRequested(row)) };
  });

  route(router, jobRunsApi.list, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const query = parseInput(jobRunsApi.list.query, ctx.query);
    ctx.body = { runs: (await listJobRuns(app.db, { serviceId: service.id, limit: query.limit, ...(query.before ? { before: query.before } : {}) })).map(presentJobRun) };
  });

  route(router, jobRunsApi.get, async (ctx) => {
    const { run } = await visibleJobRun(app.db, principalOf(ctx), ctx.params.runId!);
    ctx.body = { run: presentJobRun(run) };
  });

  route(router, jobRunsApi.cancel, async (ctx) => {
    const principal = writerOf(ctx);
    const { run } = await visibleJobRun(app.db, principal, ctx.params.runId!);
    if (!isActive(run.status)) throw new HttpError(409, 'conflict', `the run has already ended (${run.status})`);
    const { position } = await cancelJobRun(requestContext(app, ctx, principal), run.id, `canceled by ${principal.actor}`);
    await app.settle(position);
    ctx.body = { run: presentJobRun((await findJobRun(app.db, run.id)) ?? run) };
  });

  route(router, jobRunsApi.logs, async (ctx) => {
    const { run } = await visibleJobRun(app.db, principalOf(ctx), ctx.params.runId!);
    ctx.body = { logs: (await listJobRunLogs(app.db, run.id)).map(presentJobRunLog) };
  });

  route(router, jobRunsApi.stream, async (ctx) => {
    const { run } = await visibleJobRun(app.db, principalOf(ctx), ctx.params.runId!);
    const id = run.id;
    await streamLog(ctx, app.runner, id, {
      lines: (after) => listJobRunLogs(app.db, id, after),
      present: presentJobRunLog,
      // Once the run has ended, its final state; a run that is gone just ends the stream.
      ended: async () => {
        const now = await findJobRun(app.db, id);
        if (!now) return {};
        return isActive(now.status) ? null : { end: { run: presentJobRun(now) } };
      },
    });
  });
}
