import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import '../../styles/jobs.css';
import { api, messageOf } from '../../api.js';
import { useLiveReload } from '../../live-reload.js';
import { canWrite } from '../../session.js';
import { ErrorNote } from '../error-note.js';
import { JobForm } from '../jobs/job-form.js';
import type { Job, JobRun } from '../jobs/job-view.js';
import { JobsTable } from '../jobs/jobs-table.js';
import { RunCommand } from '../jobs/run-command.js';
import { RunLog } from '../jobs/run-log.js';
import { RunsTable } from '../jobs/runs-table.js';
import { confirmDialog } from '../ui/dialog.js';
import { EmptyState } from '../ui/empty-state.js';

/** A change the tab shows: the service's own, a job's or a run's (whose later events do not name the service). */
const touchesJobs = (serviceId: string) => (change: { serviceId: string | null; streamId: string }) =>
  change.serviceId === serviceId || change.streamId.startsWith('job-') || change.streamId.startsWith('jobrun-');

/**
 * An app or worker service's scheduled jobs (create, edit, enable, run now, delete), a one-off command with its
 * output, and the runs of every trigger newest first (or one job's), a chosen run's log followed live.
 */
export function JobsTab({ serviceId }: { serviceId: string }) {
  const jobs = useSignal<Job[] | null>(null);
  const runs = useSignal<JobRun[]>([]);
  /** Whose runs the list shows: null for all the service's. */
  const runsOf = useSignal<string | null>(null);
  const watching = useSignal<string | null>(null);
  /** The form shown: 'new', a job being edited, or none. */
  const editing = useSignal<'new' | Job | null>(null);
  const error = useSignal<string | null>(null);

  const load = async () => {
    const jobId = runsOf.value;
    const [j, r] = await Promise.all([
      api.GET('/api/services/{serviceId}/jobs', { params: { path: { serviceId } } }),
      jobId ? api.GET('/api/jobs/{jobId}/runs', { params: { path: { jobId }, query: {} } }) : api.GET('/api/services/{serviceId}/runs', { params: { path: { serviceId }, query: {} } }),
    ]);
    if (j.error) return void (error.value = messageOf(j.error));
    jobs.value = j.data.jobs;
    if (r.data && jobId === runsOf.value) runs.value = r.data.runs;
  };
  useEffect(() => {
    void load();
  }, [serviceId]);
  useLiveReload(touchesJobs(serviceId), load);

  const act = async (run: () => Promise<{ error?: unknown }>) => {
    const { error: failed } = await run();
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const jobPath = (job: Job) => ({ params: { path: { jobId: job.id } } });
  const runNow = (job: Job) =>
    act(async () => {
      const answer = await api.POST('/api/jobs/{jobId}/runs', jobPath(job));
      if (answer.data) watching.value = answer.data.run.id;
      return answer;
    });
  const toggle = (job: Job) => act(() => api.PATCH('/api/jobs/{jobId}', { ...jobPath(job), body: { enabled: !job.enabled } }));
  const remove = async (job: Job) => {
    const confirmed = await confirmDialog({
      title: `Delete job ${job.name}?`,
      body: 'It runs no more. Its runs stay listed with the service’s runs; one still running goes on to its end.',
      confirmLabel: 'Delete job',
      danger: true,
    });
    if (!confirmed) return;
    if (editing.value !== 'new' && editing.value?.id === job.id) editing.value = null;
    if (runsOf.value === job.id) runsOf.value = null;
    await act(() => api.DELETE('/api/jobs/{jobId}', jobPath(job)));
  };
  const cancel = (runId: string) => act(() => api.POST('/api/job-runs/{runId}/cancel', { params: { path: { runId } } }));
  const showRunsOf = (jobId: string | null) => {
    runsOf.value = jobId;
    void load();
  };

  if (jobs.value === null) return <ErrorNote message={error.value} />;
  const form = editing.value;
  const watched = runs.value.find((r) => r.id === watching.value) ?? null;
  const runTitle = watched ? `${watched.jobName ?? 'One-off command'} · ${watched.trigger === 'schedule' ? 'scheduled' : watched.trigger === 'manual' ? 'run now' : 'one-off'}` : 'Run';
  return (
    <div class="jobs-tab">
      <ErrorNote message={error.value} />
      <section aria-labelledby="jobs-heading">
        <div class="section-head">
          <h2 id="jobs-heading">Jobs</h2>
          {canWrite.value && form !== 'new' && (
            <button type="button" onClick={() => (editing.value = 'new')}>
              New job
            </button>
          )}
        </div>
        {form !== null && (
          <JobForm
            key={form === 'new' ? 'new' : form.id}
            serviceId={serviceId}
            job={form === 'new' ? null : form}
            done={() => {
              editing.value = null;
              void load();
            }}
          />
        )}
        {jobs.value.length === 0 ? (
          form === null && (
            <EmptyState title="No scheduled job" compact>
              <p class="muted">A job runs a command on a cron schedule, in a container of the current release: a nightly report, a cleanup every hour.</p>
            </EmptyState>
          )
        ) : (
          <JobsTable
            jobs={jobs.value}
            actions={{
              edit: (job) => (editing.value = job),
              toggle: (job) => void toggle(job),
              runNow: (job) => void runNow(job),
              remove: (job) => void remove(job),
            }}
          />
        )}
      </section>
      {canWrite.value && <RunCommand serviceId={serviceId} runs={runs.value} started={() => void load()} cancel={(id) => void cancel(id)} />}
      <section aria-labelledby="runs-heading">
        <div class="section-head">
          <h2 id="runs-heading">Runs</h2>
          {jobs.value.length > 0 && (
            <span class="runs-filter">
              <label for="runs-of">Show</label>
              <select id="runs-of" value={runsOf.value ?? ''} onChange={(e) => showRunsOf(e.currentTarget.value || null)}>
                <option value="">All runs</option>
                {jobs.value.map((job) => (
                  <option key={job.id} value={job.id}>
                    {job.name}
                  </option>
                ))}
              </select>
            </span>
          )}
        </div>
        {runs.value.length === 0 ? (
          <EmptyState title="No run yet" compact />
        ) : (
          <RunsTable runs={runs.value} watching={watching.value} show={(run) => (watching.value = run.id)} cancel={(id) => void cancel(id)} />
        )}
        {watching.value && <RunLog runId={watching.value} run={watched} title={runTitle} cancel={(id) => void cancel(id)} />}
      </section>
    </div>
  );
}
