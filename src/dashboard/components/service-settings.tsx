import { useSignal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';

type Service = GetAnswer<'/api/services/{serviceId}/overview'>['service'];

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/**
 * Build, start, health check, limits and release settings; saved with one PATCH, applied at the next
 * deployment. The API validates: its message is shown here.
 */
export function ServiceSettings({ service, changed }: { service: Service; changed: () => Promise<void> }) {
  const installCommand = useSignal(service.installCommand ?? '');
  const buildCommand = useSignal(service.buildCommand ?? '');
  const startCommand = useSignal(service.startCommand ?? '');
  const internalPort = useSignal(String(service.internalPort));
  const healthPath = useSignal(service.healthCheck && service.healthCheck.type === 'http' ? service.healthCheck.path : '');
  const memory = useSignal(service.resources.memory ?? '');
  const cpus = useSignal(service.resources.cpus === null ? '' : String(service.resources.cpus));
  const releasesKept = useSignal(String(service.releasesKept));
  const autoRollback = useSignal(service.autoRollback);
  const error = useSignal<string | null>(null);
  const saved = useSignal(false);
  const disabled = !canWrite.value;

  const save = async (event: Event) => {
    event.preventDefault();
    const { error: failed } = await api.PATCH('/api/services/{serviceId}', {
      params: { path: { serviceId: service.id } },
      body: {
        installCommand: orNull(installCommand.value),
        buildCommand: orNull(buildCommand.value),
        startCommand: orNull(startCommand.value),
        internalPort: Number(internalPort.value),
        ...(service.runtimeMode === 'web' ? { healthCheck: orNull(healthPath.value) ? { type: 'http' as const, path: healthPath.value.trim() } : null } : {}),
        resources: { memory: orNull(memory.value), cpus: orNull(cpus.value) === null ? null : Number(cpus.value) },
        releasesKept: Number(releasesKept.value),
        autoRollback: autoRollback.value,
      },
    });
    error.value = failed ? messageOf(failed) : null;
    saved.value = !failed;
    await changed();
  };

  const text = (id: string, label: string, value: { value: string }, extra: Record<string, string> = {}) => (
    <>
      <label for={id}>{label}</label>
      <input id={id} disabled={disabled} value={value.value} onInput={(e) => (value.value = e.currentTarget.value)} {...extra} />
    </>
  );

  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <ErrorNote message={error.value} />
      <form class="settings" onSubmit={save}>
        {text('set-install', 'Install command', installCommand)}
        {text('set-build', 'Build command', buildCommand)}
        {text('set-start', 'Start command', startCommand)}
        {text('set-port', 'Port', internalPort, { inputMode: 'numeric', pattern: '[0-9]+' })}
        {service.runtimeMode === 'web' && text('set-health', 'Health check path (empty: the default)', healthPath, { placeholder: '/health' })}
        {text('set-memory', 'Memory limit (e.g. 512m; empty: none)', memory)}
        {text('set-cpus', 'CPUs (e.g. 0.5; empty: none)', cpus, { inputMode: 'decimal' })}
        {text('set-releases', 'Releases kept for rollback', releasesKept, { inputMode: 'numeric', pattern: '[0-9]+' })}
        <label>
          <input type="checkbox" disabled={disabled} checked={autoRollback.value} onChange={(e) => (autoRollback.value = e.currentTarget.checked)} /> Roll back on its own when a new
          release misbehaves
        </label>
        {canWrite.value && <button type="submit">Save settings</button>}
        {saved.value && <p role="status">Saved: they apply at the next deployment.</p>}
      </form>
    </section>
  );
}
