import { canWrite } from '../../session.js';
import { TableHead } from '../table-head.js';
import { Badge } from '../ui/badge.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { isActive, latenessWords, runCommandText, tookWords, TRIGGER_WORDS, type JobRun } from './job-view.js';

/** Runs newest first: what each was (a job's or a one-off command), when it was due and how late, how it ended. */
export function RunsTable({ runs, watching, show, cancel }: { runs: JobRun[]; watching: string | null; show: (run: JobRun) => void; cancel: (id: string) => void }) {
  return (
    <TableScroll label="Runs">
      <table class="runs">
        <TableHead columns={['Status', 'Run', 'Trigger', 'Due', 'Took', 'Exit code']} actions />
        <tbody>
          {runs.map((run) => {
            const late = latenessWords(run);
            return (
              <tr key={run.id} data-run={run.id} data-status={run.status} aria-current={run.id === watching ? 'true' : undefined}>
                <td class="run-status">
                  <Badge status={run.status} />
                </td>
                <td class="run-what" data-label="Run">{run.jobName ?? <code title={runCommandText(run)}>{runCommandText(run)}</code>}</td>
                <td data-label="Trigger">{TRIGGER_WORDS[run.trigger]}</td>
                <td class="run-due" data-label="Due">
                  <span>
                    <RelativeTime at={run.dueAt ?? run.requestedAt} />
                    {late && <span class="late"> · {late}</span>}
                  </span>
                </td>
                <td data-label="Took">{tookWords(run)}</td>
                <td class="run-exit" data-label="Exit code">{run.exitCode ?? '—'}</td>
                <td class="row-end">
                  <span class="row-actions">
                    {run.status !== 'skipped' && (
                      <button type="button" aria-pressed={run.id === watching} onClick={() => show(run)}>
                        Log
                      </button>
                    )}
                    {canWrite.value && isActive(run) && (
                      <button type="button" onClick={() => cancel(run.id)}>
                        Cancel
                      </button>
                    )}
                  </span>
                  {run.status === 'skipped' && run.reason && <span class="muted">{run.reason}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
