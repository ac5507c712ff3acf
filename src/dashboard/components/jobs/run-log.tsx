import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { canWrite } from '../../session.js';
import { LiveLog } from '../live-log.js';
import { Badge } from '../ui/badge.js';
import { endWords, isActive, type JobRun } from './job-view.js';

/**
 * One run's output, followed live over its stream while it runs (the deployment log's viewer), with its outcome
 * once it ended: from the stream's `end`, or from the list when that knew it first. Cancel while it runs.
 */
export function RunLog({ runId, run, title, cancel }: { runId: string; run: JobRun | null; title: string; cancel: (id: string) => void }) {
  const ended = useSignal<JobRun | null>(null);
  useEffect(() => void (ended.value = null), [runId]);
  const shown = ended.value ?? run;
  return (
    <div class="run-log">
      <div class="run-log-head">
        <strong>{title}</strong>
        {shown && <Badge status={shown.status} />}
        {shown && !isActive(shown) && <span class="muted run-outcome">{endWords(shown) || shown.reason}</span>}
        {shown && isActive(shown) && canWrite.value && (
          <button type="button" class="btn-small" onClick={() => cancel(shown.id)}>
            Cancel run
          </button>
        )}
      </div>
      <LiveLog url={`/api/job-runs/${runId}/stream`} label={`Output of ${title}`} onEnd={(data) => (ended.value = (data as { run: JobRun }).run)} />
    </div>
  );
}
