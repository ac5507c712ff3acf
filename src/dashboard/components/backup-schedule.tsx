import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../shared/api-types.js';
import { api, type GetAnswer } from '../api.js';
import { changedFields } from '../changed-fields.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';

type Listing = GetAnswer<'/api/services/{serviceId}/database/backups'>;
type Schedule = Listing['settings'];
type ScheduleChange = paths['/api/services/{serviceId}/database/backups/settings']['put']['requestBody']['content']['application/json'];
type Storage = Schedule['storage'];

const STORAGE: { value: Storage; label: string }[] = [
  { value: 'disk', label: 'this server' },
  { value: 'remote', label: 'remote storage' },
  { value: 'disk+remote', label: 'both' },
];
const TIERS = [
  { name: 'automaticEnabled', label: 'Automatic backups' },
  { name: 'dailyEnabled', label: 'Keep the newest of each of 7 days' },
  { name: 'weeklyEnabled', label: 'Keep the newest of each of 4 weeks' },
  { name: 'monthlyEnabled', label: 'Keep the newest of each of 12 months' },
] as const;

// The tiers are checkboxes that cannot hold a wrong value: a refusal of one is said at the top.
const fieldOf = fieldsByPath({ storage: 'storage' });
const changeOf = (s: Schedule): Required<ScheduleChange> => ({
  storage: s.storage,
  automaticEnabled: s.automaticEnabled,
  dailyEnabled: s.dailyEnabled,
  weeklyEnabled: s.weeklyEnabled,
  monthlyEnabled: s.monthlyEnabled,
});

/** Where a database's backups go and which automatic backups are made and kept; saved as one change of what was changed. */
export function BackupSchedule({ serviceId, listing, hourUtc }: { serviceId: string; listing: Listing; hourUtc: number | null }) {
  // What the service has: the listing's, then what the last save answered.
  const stored = useSignal<Schedule>(listing.settings);
  const draft = useSignal<Schedule>(listing.settings);
  const errors = useSignal(NO_ERRORS);
  const saved = useSignal<string | null>(null);
  useEffect(() => {
    // The reload that follows a save here brings what the save answered: what was ticked since stays.
    if (listing.settings.updatedAt === stored.value.updatedAt) return;
    stored.value = listing.settings;
    draft.value = listing.settings;
  }, [listing.settings.updatedAt]);

  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const body: ScheduleChange = changedFields(changeOf(stored.value), changeOf(draft.value));
    if (Object.keys(body).length === 0) {
      errors.value = NO_ERRORS;
      saved.value = 'Nothing changed.';
      return;
    }
    const { data, error: failed } = await api.PUT('/api/services/{serviceId}/database/backups/settings', { params: { path: { serviceId } }, body });
    errors.value = failed ? formErrors(failed, fieldOf) : NO_ERRORS;
    saved.value = failed ? null : 'Backup schedule saved.';
    if (data) stored.value = draft.value = data.settings;
    if (failed) focusFirstInvalid(form);
  };

  const readOnly = !canWrite.value;
  return (
    <form class="settings" aria-label="Backup schedule" onSubmit={save}>
      <ErrorNote message={errors.value.general} />
      <label for="backup-storage">Backups go to</label>
      <select
        id="backup-storage"
        disabled={readOnly}
        value={draft.value.storage}
        onChange={(e) => (draft.value = { ...draft.value, storage: e.currentTarget.value as Storage })}
        {...invalidProps('backup-storage', errors.value.fields.storage)}
      >
        {STORAGE.map((s) => (
          <option key={s.value} value={s.value} disabled={s.value !== 'disk' && !listing.remote.connected}>
            {s.label}
          </option>
        ))}
      </select>
      <FieldError id="backup-storage" message={errors.value.fields.storage} />
      {TIERS.map((t) => (
        <label key={t.name} class="check">
          <input
            type="checkbox"
            disabled={readOnly}
            checked={draft.value[t.name]}
            onChange={(e) => (draft.value = { ...draft.value, [t.name]: e.currentTarget.checked })}
          />{' '}
          {t.label}
        </label>
      ))}
      <p class="type">
        {hourUtc === null ? 'Automatic backups run once a day.' : `Automatic backups run daily at ${String(hourUtc).padStart(2, '0')}:00 UTC.`} Manual backups are kept until deleted.
        {!listing.remote.connected && ' Remote storage is not connected.'}
      </p>
      {!readOnly && <button type="submit">Save backup schedule</button>}
      {saved.value && <p role="status">{saved.value}</p>}
    </form>
  );
}
