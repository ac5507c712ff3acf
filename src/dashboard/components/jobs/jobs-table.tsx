import { scheduleWords } from '../../schedule-words.js';
import { canWrite } from '../../session.js';
import { DangerButton } from '../danger-button.js';
import { TableHead } from '../table-head.js';
import { Badge } from '../ui/badge.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { commandText, type Job } from './job-view.js';

interface Actions {
  edit: (job: Job) => void;
  toggle: (job: Job) => void;
  runNow: (job: Job) => void;
  remove: (job: Job) => void;
}

/** A next run due within the minute: "just now" (the minute clock's word) would read as past. */
const SOON_MS = 60_000;

/** Why a job has no next run, in words. */
const noNextRun = (job: Job) => (job.enabled ? 'none' : 'disabled');

/** A service's jobs: when each runs (in words where they are plain), what, and how its last run went. */
export function JobsTable({ jobs, actions }: { jobs: Job[]; actions: Actions }) {
  return (
    <TableScroll label="Jobs">
      <table class="jobs">
        <TableHead columns={['Job', 'Schedule', 'Command', 'Next run', 'Last run']} actions />
        <tbody>
          {jobs.map((job) => {
            const words = scheduleWords(job.schedule);
            const last = job.lastRun;
            return (
              <tr key={job.id} data-job={job.name} class={job.enabled ? undefined : 'disabled'}>
                <th scope="row">
                  <span class="job-name">{job.name}</span>
                  {!job.enabled && <Badge status="disabled" tone="neutral" />}
                  <span class="muted job-concurrency">{job.concurrency}</span>
                </th>
                <td class="job-schedule" data-label="Schedule">
                  <span>
                    <code>{job.schedule}</code>
                    <span class="muted">
                      {words ? `${words}, ` : ''}
                      {job.timezone}
                    </span>
                  </span>
                </td>
                <td class="job-command" data-label="Command">
                  <code title={commandText(job.command)}>{commandText(job.command)}</code>
                </td>
                <td class="job-next" data-label="Next run">
                  {job.nextRunAt === null ? (
                    <span class="muted">{noNextRun(job)}</span>
                  ) : Date.parse(job.nextRunAt) - Date.now() < SOON_MS ? (
                    <time dateTime={job.nextRunAt}>within a minute</time>
                  ) : (
                    <RelativeTime at={job.nextRunAt} />
                  )}
                </td>
                <td class="job-last" data-label="Last run">
                  {last ? (
                    <span>
                      <Badge status={last.status} />
                      {last.exitCode !== null && <span class="muted"> exit {last.exitCode}</span>}
                      <span class="muted">
                        {' '}
                        <RelativeTime at={last.startedAt ?? last.requestedAt} />
                      </span>
                    </span>
                  ) : (
                    <span class="muted">never</span>
                  )}
                </td>
                <td class="row-end">
                  <span class="row-actions">
                    {canWrite.value && (
                      <>
                        <button type="button" onClick={() => actions.runNow(job)}>
                          Run now <span class="visually-hidden">{job.name}</span>
                        </button>
                        <button type="button" onClick={() => actions.edit(job)}>
                          Edit <span class="visually-hidden">{job.name}</span>
                        </button>
                        <button type="button" onClick={() => actions.toggle(job)}>
                          {job.enabled ? 'Disable' : 'Enable'} <span class="visually-hidden">{job.name}</span>
                        </button>
                        <DangerButton label="Delete" what={job.name} onClick={() => actions.remove(job)} />
                      </>
                    )}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
