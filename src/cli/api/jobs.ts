import { answer, apiClient, CliError, type Api } from './client.js';
import { table, when } from './output.js';
import { print } from './resources.js';
import { findService } from './resolve.js';
import { UsageError } from './usage-error.js';
import { commandOf, followToExit } from './runs.js';

type Output = { json?: boolean; project?: string };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A job by its id, or by `<project>/<service>/<name>` (`<service>/<name>` with --project, or when the service's name is unique). */
async function findJob(api: Api, ref: string, project?: string) {
  if (UUID.test(ref)) return (await answer(api.GET('/api/jobs/{jobId}', { params: { path: { jobId: ref } } }))).job;
  const slash = ref.lastIndexOf('/');
  if (slash < 0) throw new UsageError(`name a job by its id or as <project>/<service>/<job> (got ${JSON.stringify(ref)})`);
  const service = await findService(api, ref.slice(0, slash), project);
  const name = ref.slice(slash + 1).toLowerCase();
  const { jobs } = await answer(api.GET('/api/services/{serviceId}/jobs', { params: { path: { serviceId: service.id } } }));
  const found = jobs.find((j) => j.name.toLowerCase() === name);
  if (!found) throw new CliError(`${service.slug} has no job named ${JSON.stringify(ref.slice(slash + 1))}`);
  return found;
}

const commandText = (command: string | string[]) => (typeof command === 'string' ? command : command.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(' '));
const lastRunText = (run: { status: string; exitCode: number | null; requestedAt: string } | null) =>
  run ? `${run.status}${run.exitCode !== null ? ` (${run.exitCode})` : ''} ${when(run.requestedAt)}` : '';

export async function listJobs(serviceRef: string, o: Output) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const data = await answer(api.GET('/api/services/{serviceId}/jobs', { params: { path: { serviceId: service.id } } }));
  print(o.json, data, () =>
    data.jobs.length === 0
      ? `${service.slug} has no jobs: slipway jobs create ${serviceRef} --name <name> --schedule '<cron>' -- <command…>`
      : table(
          ['ID', 'NAME', 'SCHEDULE', 'ZONE', 'COMMAND', 'NEXT', 'LAST RUN'],
          data.jobs.map((j) => [
            j.id,
            j.enabled ? j.name : `${j.name} (disabled)`,
            j.schedule,
            j.timezone,
            commandText(j.command).slice(0, 40),
            when(j.nextRunAt),
            lastRunText(j.lastRun),
          ]),
        ),
  );
}

export interface CreateOptions extends Output {
  name: string;
  schedule: string;
  timezone?: string;
  timeout?: string;
  concurrency?: 'forbid' | 'replace' | 'allow';
  disabled?: boolean;
}

/** The words after `--` are the argv; one word alone is a shell command line (`-- 'npm run report > /tmp/x'`). */
export async function createJob(serviceRef: string, words: string[], o: CreateOptions) {
  if (words.length === 0) throw new UsageError('give the command after --, e.g. slipway jobs create shop/web --name report --schedule "0 3 * * *" -- npm run report');
  const timeoutSeconds = o.timeout === undefined ? undefined : Number(o.timeout);
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds > 0)) throw new UsageError('--timeout is a whole number of seconds');
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const data = await answer(
    api.POST('/api/services/{serviceId}/jobs', {
      params: { path: { serviceId: service.id } },
      body: {
        name: o.name,
        schedule: o.schedule,
        command: commandOf(words),
        ...(o.timezone ? { timezone: o.timezone } : {}),
        ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
        ...(o.concurrency ? { concurrency: o.concurrency } : {}),
        ...(o.disabled ? { enabled: false } : {}),
      },
    }),
  );
  print(o.json, data, () => `created job ${data.job.name} (${data.job.id}): next run ${when(data.job.nextRunAt) || 'none while the service does not run'}`);
}

export async function removeJob(ref: string, o: Output) {
  const { api } = apiClient();
  const job = await findJob(api, ref, o.project);
  const data = await answer(api.DELETE('/api/jobs/{jobId}', { params: { path: { jobId: job.id } } }));
  print(o.json, data, () => `deleted job ${job.name} (${job.id})`);
}

export async function listJobRuns(ref: string, o: Output & { limit?: string }) {
  const { api } = apiClient();
  const job = await findJob(api, ref, o.project);
  const limit = o.limit === undefined ? 20 : Number(o.limit);
  const data = await answer(api.GET('/api/jobs/{jobId}/runs', { params: { path: { jobId: job.id }, query: { limit } } }));
  print(o.json, data, () =>
    data.runs.length === 0
      ? `${job.name} has not run yet`
      : table(
          ['ID', 'TRIGGER', 'STATUS', 'EXIT', 'DURATION', 'DUE', 'LATE', 'REQUESTED', 'REASON'],
          data.runs.map((r) => [
            r.id,
            r.trigger,
            r.status,
            r.exitCode === null ? '' : String(r.exitCode),
            r.durationMs === null ? '' : `${(r.durationMs / 1000).toFixed(1)}s`,
            when(r.dueAt),
            r.lateMs === null ? '' : `${(r.lateMs / 1000).toFixed(1)}s`,
            when(r.requestedAt),
            (r.reason ?? '').split('\n')[0]!.slice(0, 60),
          ]),
        ),
  );
}

/** Runs the job now and follows it like `slipway run`: its output as it comes, the command's exit code as the result. */
export async function runJobNow(ref: string, o: Output): Promise<number> {
  const { api } = apiClient();
  const job = await findJob(api, ref, o.project);
  const { run } = await answer(api.POST('/api/jobs/{jobId}/runs', { params: { path: { jobId: job.id } } }));
  return followToExit(api, run, o, `run ${run.id} of job ${job.name}`);
}
