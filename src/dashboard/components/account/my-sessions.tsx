import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../../api.js';
import { deviceWords } from '../../device-words.js';
import { DangerButton } from '../danger-button.js';
import { ErrorNote } from '../error-note.js';
import { TableHead } from '../table-head.js';
import { Badge } from '../ui/badge.js';
import { confirmDialog } from '../ui/dialog.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { toast } from '../ui/toast.js';

type MySession = GetAnswer<'/api/users/me/sessions'>['sessions'][number];

/** Where I am signed in; ending one signs that browser out at its next request. */
export function MySessions() {
  const sessions = useSignal<MySession[]>([]);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/users/me/sessions');
    error.value = failed ? messageOf(failed) : null;
    if (data) sessions.value = data.sessions;
  };
  useEffect(() => {
    void load();
  }, []);

  const end = async (s: MySession) => {
    const { error: failed } = await api.DELETE('/api/users/me/sessions/{sessionId}', { params: { path: { sessionId: s.id } } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) toast(`The session on ${deviceWords(s.device)} was ended.`);
    await load();
  };
  const endOthers = async () => {
    const confirmed = await confirmDialog({ title: 'End all your other sessions?', body: 'Every other browser signed in as you is signed out at its next request.', confirmLabel: 'End them', danger: true });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/users/me/sessions');
    error.value = failed ? messageOf(failed) : null;
    if (!failed) toast('Your other sessions were ended.');
    await load();
  };

  const others = sessions.value.filter((s) => !s.current).length;
  return (
    <section aria-labelledby="sessions">
      <div class="section-title">
        <h2 id="sessions">Sessions</h2>
        {others > 0 && (
          <button type="button" class="danger" onClick={() => void endOthers()}>
            End all other sessions
          </button>
        )}
      </div>
      <ErrorNote message={error.value} />
      <TableScroll label="Your sessions">
        <table>
          <TableHead columns={['Device', 'Address', 'Signed in', 'Last seen']} actions />
          <tbody>
            {sessions.value.map((s) => (
              <tr key={s.id}>
                <td title={s.device ?? undefined}>
                  {deviceWords(s.device)} {s.current && <Badge status="this device" tone="info" />}
                </td>
                <td>{s.address ?? 'unknown'}</td>
                <td>
                  <RelativeTime at={s.createdAt} />
                </td>
                <td>
                  <RelativeTime at={s.lastSeenAt} />
                </td>
                <td>{!s.current && <DangerButton label="End" what={`the session on ${deviceWords(s.device)}, last seen ${new Date(s.lastSeenAt).toLocaleString()}`} onClick={() => void end(s)} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
