import type Router from '@koa/router';
import { JOB_DEFAULTS } from '../../../commands/job/events.js';
import { createJob, deleteJob, updateJob } from '../../../commands/job/handlers.js';
import { argvOf } from '../../../commands/shared/command-line.js';
import { requestJobRun } from '../../../commands/job-run/handlers.js';
import { conflict } from '../../../commands/shared/domain-error.js';
import { newId } from '../../../commands/shared/ids.js';
import { commandOf, countJobsOfService, findJob, listJobsOfService, MAX_JOBS_PER_SERVICE } from '../../../projections/job-queries.js';
import { countActiveJobRunsOfService, findJobRun, listJobRuns } from '../../../projections/job-run-queries.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import type { Slipway } from '../../slipway.js';
import { isId, principalOf, visibleService, writerOf } from '../auth.js';
import { jobsApi } from '../contract/jobs.js';
import { route } from '../contract/endpoint.js';
import { HttpError, notFoundHttp } from '../errors.js';
import { presentJob, runsJobs } from '../job-answers.js';
import { presentJobRun } from '../job-run-answers.js';
import { MAX_ACTIVE_RUNS_PER_SERVICE } from './job-runs.js';
import type { Principal } from '../principals.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

/** Only services that run an app or a worker from a Git source or an image have jobs. */
function requireJobService(service: ServiceRow) {
  if (service.kind === 'database') throw conflict('this is a database service: only app and worker services (a Git source or an image) have jobs');
  if (service.runtime_mode === 'static') throw conflict('this is a static site: it runs no container of its own to run a job in; only app and worker services have jobs');
}

/** A job of a service the principal may see (another project's: 404, like a missing one). */
async function visibleJob(app: Slipway, principal: Principal, jobId: string) {
  const row = isId(jobId) ? await findJob(app.db, jobId) : null;
  if (!row) throw notFoundHttp('job');
  const service = await visibleService(app.db, principal, row.service_id).catch((error: unknown) => {
    throw error instanceof HttpError && error.status === 404 ? notFoundHttp('job') : error;
  });
  return { row, service };
}

export function jobRoutes(router: Router, app: Slipway) {
  async function answerJob(jobId: string, service: ServiceRow) {
    const row = await findJob(app.db, jobId);
    if (!row) throw notFoundHttp('job');
    return { job: await presentJob(app.db, row, service) };
  }

  route(router, jobsApi.create, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    requireJobService(service);
    const body = parseInput(jobsApi.create.body, ctx.request.body ?? {});
    if ((await countJobsOfService(app.db, service.id)) >= MAX_JOBS_PER_SERVICE) throw conflict(`the service has ${MAX_JOBS_PER_SERVICE} jobs, the most it may have: delete one first`);
    const { id, position } = await createJob(requestContext(app, ctx, principal), {
      serviceId: service.id,
      projectId: service.project_id,
      name: body.name,
      schedule: body.schedule,
      timezone: body.timezone ?? JOB_DEFAULTS.timezone,
      command: body.command,
      timeoutSeconds: body.timeoutSeconds ?? JOB_DEFAULTS.timeoutSeconds,
      concurrency: body.concurrency ?? JOB_DEFAULTS.concurrency,
      enabled: body.enabled ?? JOB_DEFAULTS.enabled,
    });
    await app.settle(position);
    ctx.body = await answerJob(id, service);
  });

  route(router, jobsApi.list, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const rows = await listJobsOfService(app.db, service.id);
    ctx.body = { jobs: await Promise.all(rows.map((row) => presentJob(app.db, row, service))) };
  });

  route(router, jobsApi.get, async (ctx) => {
    const { row, service } = await visibleJob(app, principalOf(ctx), ctx.params.jobId!);
    ctx.body = { job: await presentJob(app.db, row, service) };
  });

  route(router, jobsApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    const { row, service } = await visibleJob(app, principal, ctx.params.jobId!);
    const changes = parseInput(jobsApi.update.body, ctx.request.body ?? {});
    const { position } = await updateJob(requestContext(app, ctx, principal), row.id, changes);
    await app.settle(position);
    ctx.body = await answerJob(row.id, service);
  });

  route(router, jobsApi.delete, async (ctx) => {
    const principal = writerOf(ctx);
    const { row } = await visibleJob(app, principal, ctx.params.jobId!);
    const { position } = await deleteJob(requestContext(app, ctx, principal), row.id);
    await app.settle(position);
    ctx.body = { ok: true };
  });

  route(router, jobsApi.run, async (ctx) => {
    const principal = writerOf(ctx);
    const { row, service } = await visibleJob(app, principal, ctx.params.jobId!);
    if (!runsJobs(service)) throw conflict(service.status === 'stopped' ? 'the service is stopped: start it to run its jobs' : 'the service has no release yet: deploy it first');
    if ((await countActiveJobRunsOfService(app.db, service.id)) >= MAX_ACTIVE_RUNS_PER_SERVICE) {
      throw conflict(`the service has ${MAX_ACTIVE_RUNS_PER_SERVICE} runs queued or running: wait for some to end, or cancel them`);
    }
    const cmd = requestContext(app, ctx, principal);
    const runId = newId(cmd, 'jobrun');
    const { position } = await requestJobRun(cmd, runId, {
      serviceId: service.id,
      projectId: service.project_id,
      jobId: row.id,
      jobName: row.name,
      command: argvOf(commandOf(row)),
      timeoutSeconds: row.timeout_seconds,
      trigger: 'manual',
      dueAt: null,
      lateMs: null,
    });
    await app.settle(position);
    const run = await findJobRun(app.db, runId);
    if (!run) throw notFoundHttp('run');
    ctx.body = { run: presentJobRun(run) };
  });

  route(router, jobsApi.runs, async (ctx) => {
    const { row } = await visibleJob(app, principalOf(ctx), ctx.params.jobId!);
    const query = parseInput(jobsApi.runs.query, ctx.query);
    const runs = await listJobRuns(app.db, { jobId: row.id, limit: query.limit, ...(query.before ? { before: query.before } : {}) });
    ctx.body = { runs: runs.map(presentJobRun) };
  });
}
