import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../shared/api-types.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';

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

/** Where a database's backups go and which automatic backups are made and kept; saved as one change. */
export function BackupSchedule({ serviceId, listing, hourUtc }: { serviceId: string; listing: Listing; hourUtc: number | null }) {
  const draft = useSignal<Schedule>(listing.settings);
  const error = useSignal<string | null>(null);
  const saved = useSignal(false);
  useEffect(() => {
    draft.value = listing.settings;
  }, [listing.settings.updatedAt]);

  const save = async (event: Event) => {
    event.preventDefault();
    const body: ScheduleChange = { storage: draft.value.storage, ...Object.fromEntries(TIERS.map((t) => [t.name, draft.value[t.name]])) };
    const { data, error: failed } = await api.PUT('/api/services/{serviceId}/database/backups/settings', { params: { path: { serviceId } }, body });
    error.value = failed ? messageOf(failed) : null;
    saved.value = !failed;
    if (data) draft.value = data.settings;
  };

  const readOnly = !canWrite.value;
  return (
    <form class="settings" aria-label="Backup schedule" onSubmit={save}>
      <ErrorNote message={error.value} />
      <label for="backup-storage">Backups go to</label>
      <select id="backup-storage" disabled={readOnly} value={draft.value.storage} onChange={(e) => (draft.value = { ...draft.value, storage: e.currentTarget.value as Storage })}>
        {STORAGE.map((s) => (
          <option key={s.value} value={s.value} disabled={s.value !== 'disk' && !listing.remote.connected}>
            {s.label}
          </option>
        ))}
      </select>
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
      {saved.value && <p role="status">Backup schedule saved.</p>}
    </form>
  );
}
