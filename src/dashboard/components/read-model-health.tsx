import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { TableHead } from './table-head.js';

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
    const reason = window.prompt(`Why skip ${p.type} for ${p.projector}? (recorded)`);
    if (!reason) return;
    const { error: failed } = await api.POST('/api/health/parked/{projector}/{eventId}/skip', { ...path(p), body: { reason } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };

  const h = health.value;
  return (
    <section aria-labelledby="health">
      <h2 id="health">Health {h && <span class={h.ok ? 'status-active' : 'status-failed'}>{h.ok ? 'ok' : 'needs attention'}</span>}</h2>
      <ErrorNote message={error.value} />
      {h && (
        <>
          <ul>
            <li>Docker host: {h.docker.ok ? 'ok' : h.docker.detail}</li>
            <li>Proxy: {h.proxy.ok ? 'ok' : h.proxy.detail}</li>
            {h.warnings.map((w) => (
              <li key={w} class="error">
                {w}
              </li>
            ))}
          </ul>
          <table>
            <TableHead columns={['Read model', 'State', 'Behind', 'Parked']} />
            <tbody>
              {h.projectors.map((p) => (
                <tr key={p.name}>
                  <td>{p.name}</td>
                  <td>{p.state}</td>
                  <td>{p.behind}</td>
                  <td>{p.parked}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {parked.value.length > 0 && (
        <ul>
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
