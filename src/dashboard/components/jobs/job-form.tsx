import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { paths } from '../../../shared/api-types.js';
import { api } from '../../api.js';
import { changedFields } from '../../changed-fields.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { scheduleWords } from '../../schedule-words.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import { commandText, type Job } from './job-view.js';

type Concurrency = Job['concurrency'];
type JobChange = paths['/api/jobs/{jobId}']['patch']['requestBody']['content']['application/json'];

interface JobFields {
  name: string;
  schedule: string;
  timezone: string;
  command: string;
  timeoutSeconds: string;
  concurrency: Concurrency;
  enabled: boolean;
}

const CONCURRENCY: { value: Concurrency; label: string }[] = [
  { value: 'forbid', label: 'Skip the due time (forbid)' },
  { value: 'replace', label: 'Stop the running one, start anew (replace)' },
  { value: 'allow', label: 'Run both (allow)' },
];

/** A new job's form: empty, with the API's defaults shown as placeholders. */
const BLANK: JobFields = { name: '', schedule: '', timezone: '', command: '', timeoutSeconds: '', concurrency: 'forbid', enabled: true };

const fieldsOf = (job: Job): JobFields => ({
  name: job.name,
  schedule: job.schedule,
  timezone: job.timezone,
  command: commandText(job.command),
  timeoutSeconds: String(job.timeoutSeconds),
  concurrency: job.concurrency,
  enabled: job.enabled,
});

/** What the fields mean to the API (an empty timeout: the default, not sent). */
const bodyOf = (f: JobFields): JobChange => ({
  name: f.name.trim(),
  schedule: f.schedule.trim(),
  timezone: f.timezone.trim() || undefined,
  command: f.command,
  timeoutSeconds: f.timeoutSeconds.trim() === '' ? undefined : Number(f.timeoutSeconds.trim()),
  concurrency: f.concurrency,
  enabled: f.enabled,
});
/** The one field the form checks itself: a number the API would otherwise be sent as something else. */
const timeoutError = (f: JobFields, creating: boolean): string | null =>
  /^\d+$/.test(f.timeoutSeconds.trim()) || (creating && f.timeoutSeconds.trim() === '') ? null : 'must be a whole number of seconds';

const fieldOf = fieldsByPath({ name: 'name', schedule: 'schedule', timezone: 'timezone', command: 'command', timeoutSeconds: 'timeoutSeconds', concurrency: 'concurrency', enabled: 'enabled' });
const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

/**
 * Creates a job (name, schedule and command always sent, so that a missing one is said at its field; the rest
 * only when filled in or changed from the default) or changes one (only the fields changed). The API validates
 * the schedule and the zone; each refusal is shown at its field.
 */
export function JobForm({ serviceId, job, done }: { serviceId: string; job: Job | null; done: (saved: Job | null) => void }) {
  const initial = job ? fieldsOf(job) : BLANK;
  const draft = useSignal(initial);
  const errors = useSignal(NO_ERRORS);
  const note = useSignal<string | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [job?.id]);
  const set = (patch: Partial<JobFields>) => (draft.value = { ...draft.value, ...patch });
  const prefix = job ? 'edit-job' : 'new-job';

  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const badTimeout = timeoutError(draft.value, job === null);
    if (badTimeout) {
      errors.value = { general: null, fields: { timeoutSeconds: badTimeout } };
      return focusFirstInvalid(form);
    }
    const changed = changedFields(bodyOf(initial), bodyOf(draft.value));
    if (job && Object.keys(changed).length === 0) {
      errors.value = NO_ERRORS;
      note.value = 'Nothing changed.';
      return;
    }
    const f = draft.value;
    const answer = job
      ? await api.PATCH('/api/jobs/{jobId}', { params: { path: { jobId: job.id } }, body: changed })
      : await api.POST('/api/services/{serviceId}/jobs', {
          params: { path: { serviceId } },
          body: { ...changed, name: f.name.trim(), schedule: f.schedule.trim(), command: f.command },
        });
    if (answer.error) {
      errors.value = formErrors(answer.error, fieldOf);
      note.value = null;
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    done(answer.data.job);
  };

  const text = (field: Exclude<keyof JobFields, 'enabled' | 'concurrency'>, label: string, extra: Record<string, string | boolean> = {}) => {
    const id = `${prefix}-${field}`;
    const invalid = invalidProps(id, errors.value.fields[field]);
    const describedBy = [extra['aria-describedby'], invalid['aria-describedby']].filter(Boolean).join(' ') || undefined;
    return (
      <>
        <label for={id}>{label}</label>
        <input
          id={id}
          ref={field === 'name' ? first : undefined}
          autocomplete="off"
          value={draft.value[field]}
          onInput={(e) => set({ [field]: e.currentTarget.value })}
          {...extra}
          {...invalid}
          aria-describedby={describedBy}
        />
        <FieldError id={id} message={errors.value.fields[field]} />
      </>
    );
  };
  const words = scheduleWords(draft.value.schedule);

  return (
    <form class="settings job-form" aria-label={job ? `Edit job ${job.name}` : 'New job'} onSubmit={save}>
      <ErrorNote message={errors.value.general} />
      {text('name', 'Name', { placeholder: 'nightly-report' })}
      {text('schedule', 'Schedule (cron)', { placeholder: '*/5 * * * *', class: 'mono', spellcheck: false, 'aria-describedby': `${prefix}-schedule-words` })}
      <p id={`${prefix}-schedule-words`} class="help schedule-words" aria-live="polite">
        {words ? `Runs ${words}.` : 'Five fields: minute, hour, day of month, month, day of week; or @hourly, @daily, @weekly, @monthly, @yearly.'}
      </p>
      {text('timezone', 'Time zone', { placeholder: 'UTC', list: 'job-time-zones', spellcheck: false })}
      {text('command', 'Command', { placeholder: 'npm run report', class: 'mono', spellcheck: false })}
      {text('timeoutSeconds', 'Timeout (seconds)', { placeholder: '3600', inputMode: 'numeric' })}
      <label for={`${prefix}-concurrency`}>While a run is still going</label>
      <select id={`${prefix}-concurrency`} value={draft.value.concurrency} onChange={(e) => set({ concurrency: e.currentTarget.value as Concurrency })} {...invalidProps(`${prefix}-concurrency`, errors.value.fields.concurrency)}>
        {CONCURRENCY.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
      <FieldError id={`${prefix}-concurrency`} message={errors.value.fields.concurrency} />
      <label class="check">
        <input type="checkbox" checked={draft.value.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> Enabled: runs at its due times
      </label>
      <datalist id="job-time-zones">
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <p class="row-actions">
        <button type="submit">{job ? 'Save job' : 'Create job'}</button>
        <button type="button" onClick={() => done(null)}>
          Cancel
        </button>
      </p>
      {note.value && <p role="status">{note.value}</p>}
    </form>
  );
}
