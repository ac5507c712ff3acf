import { signal, useSignal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from '../api.js';
import { changedFields } from '../changed-fields.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';

type Service = GetAnswer<'/api/services/{serviceId}/overview'>['service'];

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

interface SettingsFields {
  installCommand: string;
  buildCommand: string;
  startCommand: string;
  internalPort: string;
  healthPath: string;
  memory: string;
  cpus: string;
  releasesKept: string;
  autoRollback: boolean;
}

/** Which settings a service has: commands drive a build from source; a database has no port or health path to set. */
const shapeOf = (service: Service) => {
  const database = service.repoUrl === 'database';
  return { database, built: !database && service.repoUrl !== 'docker-image', web: service.runtimeMode === 'web' && !database };
};

/**
 * What the form's fields mean to the API; a web service's health check only (a worker has none to set here).
 * A PATCH of `resources` replaces the whole set: the limits this form does not show, and one it shows that
 * was left alone (absent: the installation's default), are sent as the service has them.
 */
const bodyOf = (f: SettingsFields, initial: SettingsFields, service: Service) => ({
  installCommand: orNull(f.installCommand),
  buildCommand: orNull(f.buildCommand),
  startCommand: orNull(f.startCommand),
  internalPort: Number(f.internalPort),
  ...(shapeOf(service).web ? { healthCheck: orNull(f.healthPath) ? { type: 'http' as const, path: f.healthPath.trim() } : null } : {}),
  resources: {
    ...service.resources,
    ...(f.memory === initial.memory ? {} : { memory: orNull(f.memory) }),
    ...(f.cpus === initial.cpus ? {} : { cpus: orNull(f.cpus) }),
  },
  releasesKept: Number(f.releasesKept),
  autoRollback: f.autoRollback,
});

/** What the last save said: the form is made again from the saved service, and the note outlives it. */
const lastSaved = signal<{ serviceId: string; note: string } | null>(null);

const fieldsOf = (service: Service): SettingsFields => ({
  installCommand: service.installCommand ?? '',
  buildCommand: service.buildCommand ?? '',
  startCommand: service.startCommand ?? '',
  internalPort: String(service.internalPort),
  healthPath: service.healthCheck && service.healthCheck.type === 'http' ? service.healthCheck.path : '',
  memory: service.resources.memory ?? '',
  cpus: service.resources.cpus == null ? '' : String(service.resources.cpus),
  releasesKept: String(service.releasesKept),
  autoRollback: service.autoRollback,
});

/**
 * Build, start, health check, limits and release settings; saved with one PATCH of the fields a person changed
 * (a field left alone keeps what the service has, a default health check included), applied at the next
 * deployment. The API validates: its message is shown here.
 */
export function ServiceSettings({ service, changed }: { service: Service; changed: () => Promise<void> }) {
  const initial = fieldsOf(service);
  const draft = useSignal(initial);
  const error = useSignal<string | null>(null);
  const disabled = !canWrite.value;
  const { database, built, web } = shapeOf(service);

  const save = async (event: Event) => {
    event.preventDefault();
    const body = changedFields(bodyOf(initial, initial, service), bodyOf(draft.value, initial, service));
    if (Object.keys(body).length === 0) {
      error.value = null;
      lastSaved.value = { serviceId: service.id, note: 'Nothing changed.' };
      return;
    }
    const { data, error: failed } = await api.PATCH('/api/services/{serviceId}', { params: { path: { serviceId: service.id } }, body });
    error.value = failed ? messageOf(failed) : null;
    // New limits re-create the running release at once (a deployment of kind config); the rest waits.
    lastSaved.value = !data
      ? null
      : { serviceId: service.id, note: data.deployment ? 'Saved. The new limits re-create the running release now (a config deployment).' : 'Saved: they apply at the next deployment.' };
    await changed();
  };
  const set = (patch: Partial<SettingsFields>) => (draft.value = { ...draft.value, ...patch });

  type TextField = Exclude<keyof SettingsFields, 'autoRollback'>;
  const text = (id: string, label: string, field: TextField, extra: Record<string, string> = {}) => (
    <>
      <label for={id}>{label}</label>
      <input id={id} disabled={disabled} value={draft.value[field]} onInput={(e) => set({ [field]: e.currentTarget.value })} {...extra} />
    </>
  );

  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <ErrorNote message={error.value} />
      <form class="settings" onSubmit={save}>
        {built && text('set-install', 'Install command', 'installCommand')}
        {built && text('set-build', 'Build command', 'buildCommand')}
        {built && text('set-start', 'Start command', 'startCommand')}
        {!database && text('set-port', 'Port', 'internalPort', { inputMode: 'numeric', pattern: '[0-9]+' })}
        {web && text('set-health', 'Health check path (empty: the default)', 'healthPath', { placeholder: '/health' })}
        {text('set-memory', 'Memory limit (e.g. 512m; empty: none)', 'memory')}
        {text('set-cpus', 'CPUs (e.g. 0.5; empty: none)', 'cpus', { inputMode: 'decimal' })}
        {text('set-releases', 'Releases kept for rollback', 'releasesKept', { inputMode: 'numeric', pattern: '[0-9]+' })}
        <label>
          <input type="checkbox" disabled={disabled} checked={draft.value.autoRollback} onChange={(e) => set({ autoRollback: e.currentTarget.checked })} /> Roll back on its own when a new
          release misbehaves
        </label>
        {canWrite.value && <button type="submit">Save settings</button>}
        {lastSaved.value?.serviceId === service.id && <p role="status">{lastSaved.value.note}</p>}
      </form>
    </section>
  );
}
