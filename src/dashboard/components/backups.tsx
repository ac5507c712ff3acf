import { useComputed, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { useLiveReload } from '../live-reload.js';
import { BackupSchedule } from './backup-schedule.js';
import { ErrorNote } from './error-note.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';

type Listing = GetAnswer<'/api/services/{serviceId}/database/backups'>;
type Backup = Listing['backups'][number];

/** A database's backups: take one, download it, restore it (after saying what it replaces), and their schedule. */
export function Backups({ serviceId, serviceName }: { serviceId: string; serviceName: string }) {
  const listing = useSignal<Listing | null>(null);
  const hourUtc = useSignal<number | null>(null);
  const backups = useComputed(() => listing.value?.backups ?? []);
  const error = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  const path = { params: { path: { serviceId } } };
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/services/{serviceId}/database/backups', path);
    if (failed) return void (error.value = messageOf(failed));
    listing.value = data;
  };
  useEffect(() => {
    void load();
    void api.GET('/api/settings').then(({ data }) => (hourUtc.value = data?.settings.backups.hourUtc ?? null));
  }, [serviceId]);
  // A backup taken, ended, restored or deleted anywhere (the schedule included) shows as it happens.
  useLiveReload((change) => change.serviceId === serviceId && change.type.startsWith('Backup'), load);

  const take = async () => {
    const { error: failed } = await api.POST('/api/services/{serviceId}/database/backups', { ...path, body: {} });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const restore = async (b: Backup) => {
    const confirmed = await confirmDialog({
      title: `Restore ${serviceName} from the backup of ${b.createdAt.replace('T', ' ').slice(0, 19)} UTC?`,
      body: `What the backup holds replaces ${serviceName}'s current data: changes made since then are lost.`,
      confirmLabel: 'Restore',
      danger: true,
      typeToConfirm: serviceName,
    });
    if (!confirmed) return;
    const { data, error: failed } = await api.POST('/api/services/{serviceId}/database/backups/{backupId}/restore', { params: { path: { serviceId, backupId: b.id } } });
    error.value = failed ? messageOf(failed) : null;
    note.value = data ? `Restored at ${data.restoredAt}` : null;
    await load();
  };

  return (
    <section aria-labelledby="backups">
      <h2 id="backups">Backups</h2>
      <ErrorNote message={error.value} />
      {note.value && <p role="status">{note.value}</p>}
      {canWrite.value && (
        <button type="button" onClick={() => void take()}>
          Back up now
        </button>
      )}
      <table>
        <TableHead columns={['Taken', 'Status', 'Where', 'Size']} actions />
        <tbody>
          {backups.value.map((b) => (
            <tr key={b.id}>
              <td>{b.createdAt.replace('T', ' ').slice(0, 19)}</td>
              <td class={`status status-${b.status}`}>{b.status}{b.error ? ` — ${b.error}` : ''}</td>
              <td>{b.storage}</td>
              <td>{b.sizeBytes === null ? '' : `${(b.sizeBytes / 1024).toFixed(0)} kB`}</td>
              <td>
                {b.status === 'succeeded' && (
                  <>
                    <a href={`/api/services/${serviceId}/database/backups/${b.id}/download`} download>
                      Download
                    </a>{' '}
                    {canWrite.value && (
                      <button type="button" class="danger" onClick={() => void restore(b)}>
                        Restore…
                      </button>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {listing.value && <BackupSchedule serviceId={serviceId} listing={listing.value} hourUtc={hourUtc.value} />}
    </section>
  );
}
