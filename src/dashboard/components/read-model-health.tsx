import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { askDialog } from './ui/ask-dialog.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { TableHead } from './table-head.js';
import { Badge } from './ui/badge.js';
import { TableScroll } from './ui/table-scroll.js';

type Health = GetAnswer<'/api/health'>;
type Parked = GetAnswer<'/api/health/parked'>['parked'][number];

/** Read models and process managers, the engine and the proxy; parked events with retry and skip. */
export function ReadModelHealth() {
  const health = useSignal<Health | null>(null);
  const parked = useSignal<Parked[]>([]);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const [h, p] = await Promise.all([api.GET('/api/health'), api.GET('/api/health/parked')]);
    if (h.error) return void (error.value = messageOf(h.error));
    health.value = h.data;
    parked.value = p.data?.parked ?? [];
  };
  useEffect(() => {
    void load();
  }, []);
  const path = (p: Parked) => ({ params: { path: { projector: p.projector, eventId: p.eventId } } });
  const retry = async (p: Parked) => {
    const { error: failed } = await api.POST('/api/health/parked/{projector}/{eventId}/retry', path(p));
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const skip = async (p: Parked) => {
    const reason = await askDialog({
      title: `Skip ${p.type} in ${p.projector}?`,
      body: 'The read model goes on without it; the event stays in the log.',
      label: 'Why (kept with the skip)',
      confirmLabel: 'Skip the event',
    });
    if (!reason) return;
    const { error: failed } = await api.POST('/api/health/parked/{projector}/{eventId}/skip', { ...path(p), body: { reason } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };

  const h = health.value;
  return (
    <section aria-labelledby="health">
      <h2 id="health" class="section-title">
        Health {h && <Badge status={h.ok ? 'ok' : 'failing'}>{h.ok ? 'ok' : 'needs attention'}</Badge>}
      </h2>
      <ErrorNote message={error.value} />
      {h && (
        <>
          <ul class="checks">
            <li>
              <span class={`dot tone-${h.docker.ok ? 'success' : 'danger'}`} aria-hidden="true" />
              Docker host: {h.docker.ok ? 'ok' : h.docker.detail}
            </li>
            <li>
              <span class={`dot tone-${h.proxy.ok ? 'success' : 'danger'}`} aria-hidden="true" />
              Proxy: {h.proxy.ok ? 'ok' : h.proxy.detail}
            </li>
            {h.warnings.map((w) => (
              <li key={w} class="error">
                {w}
              </li>
            ))}
          </ul>
          <TableScroll label="Read models">
            <table>
              <TableHead columns={['Read model', 'State', 'Behind', 'Parked']} />
              <tbody>
                {h.projectors.map((p) => (
                  <tr key={p.name}>
                    <td class="mono">{p.name}</td>
                    <td>
                      <Badge status={p.state} />
                    </td>
                    <td>{p.behind}</td>
                    <td>{p.parked}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
      {parked.value.length > 0 && (
        <ul class="item-list" aria-label="Parked events">
          {parked.value.map((p) => (
            <li key={`${p.projector}/${p.eventId}`}>
              {p.projector}: {p.type} on {p.streamId} — {p.error}{' '}
              {canWrite.value && (
                <>
                  <button type="button" onClick={() => void retry(p)}>
                    Retry
                  </button>
                  <button type="button" class="danger" onClick={() => void skip(p)}>
                    Skip…
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
