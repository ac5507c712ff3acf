import { signal, useSignal } from '@preact/signals';
import { api, type GetAnswer } from '../api.js';
import { changedFields } from '../changed-fields.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';
import { commandText } from './jobs/job-view.js';
import { confirmDialog } from './ui/dialog.js';

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
  releaseCommand: string;
  releaseCommandOnRollback: boolean;
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
  // A database runs no release command: its fields are not sent for one.
  ...(shapeOf(service).database ? {} : { releaseCommand: orNull(f.releaseCommand), releaseCommandOnRollback: f.releaseCommandOnRollback }),
});

/**
 * The settings the API applies at once to a service with a running release, by re-creating it without a build
 * (a deployment of kind `config`: RUN_SETTINGS in src/http/routes/services.ts); the rest waits for a deployment.
 */
const RESTARTING = { resources: 'limits', healthCheck: 'health check' } as const;
const restartingIn = (body: object) => (Object.keys(RESTARTING) as (keyof typeof RESTARTING)[]).filter((key) => key in body).map((key) => RESTARTING[key]).join(' and ');

/** The API's paths of the form's fields. */
const fieldOf = fieldsByPath({
  installCommand: 'installCommand',
  buildCommand: 'buildCommand',
  startCommand: 'startCommand',
  internalPort: 'internalPort',
  healthCheck: 'healthPath',
  'resources.memory': 'memory',
  'resources.cpus': 'cpus',
  releasesKept: 'releasesKept',
  autoRollback: 'autoRollback',
  releaseCommand: 'releaseCommand',
  releaseCommandOnRollback: 'releaseCommandOnRollback',
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
  releaseCommand: service.releaseCommand === null ? '' : commandText(service.releaseCommand),
  releaseCommandOnRollback: service.releaseCommandOnRollback,
});

/**
 * Build, start, health check, limits and release settings; saved with one PATCH of the fields a person changed
 * (a field left alone keeps what the service has, a default health check included). Limits and the health
 * check restart a running service at once, which it asks first; the rest applies at the next deployment.
 * The API validates: each refusal is shown at its field.
 */
export function ServiceSettings({ service, running, changed }: { service: Service; running: boolean; changed: () => Promise<void> }) {
  const initial = fieldsOf(service);
  const draft = useSignal(initial);
  const errors = useSignal(NO_ERRORS);
  const disabled = !canWrite.value;
  const { database, built, web } = shapeOf(service);

  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const body = changedFields(bodyOf(initial, initial, service), bodyOf(draft.value, initial, service));
    if (Object.keys(body).length === 0) {
      errors.value = NO_ERRORS;
      lastSaved.value = { serviceId: service.id, note: 'Nothing changed.' };
      return;
    }
    const restarting = running ? restartingIn(body) : '';
    const others = Object.keys(body).some((key) => !(key in RESTARTING));
    if (
      restarting &&
      !(await confirmDialog({
        title: `Saving new ${restarting} restarts ${service.name} now (a config deployment). Continue?`,
        body: `The running release is re-created with them, without a build${others ? '; the other changes apply at the next deployment' : ''}.`,
        confirmLabel: 'Save and restart',
      }))
    )
      return;
    const { data, error: failed } = await api.PATCH('/api/services/{serviceId}', { params: { path: { serviceId: service.id } }, body });
    if (failed) {
      errors.value = formErrors(failed, fieldOf);
      lastSaved.value = null;
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    // What the API did, not what was expected: it answers the config deployment it started, if any.
    const now = data.deployment ? `${service.name} restarts now with the new ${restartingIn(body)} (a config deployment)` : null;
    const later = now ? (others ? '; the other changes apply at the next deployment.' : '.') : ': the changes apply at the next deployment.';
    lastSaved.value = { serviceId: service.id, note: `Saved${now ? `. ${now}` : ''}${later}` };
    await changed();
  };
  const set = (patch: Partial<SettingsFields>) => (draft.value = { ...draft.value, ...patch });

  type TextField = Exclude<keyof SettingsFields, 'autoRollback' | 'releaseCommandOnRollback'>;
  const text = (id: string, label: string, field: TextField, extra: Record<string, string | boolean> = {}) => (
    <>
      <label for={id}>{label}</label>
      <input id={id} disabled={disabled} value={draft.value[field]} onInput={(e) => set({ [field]: e.currentTarget.value })} {...extra} {...invalidProps(id, errors.value.fields[field])} />
      <FieldError id={id} message={errors.value.fields[field]} />
    </>
  );
  const atOnce = web ? 'Limits and the health check' : 'Limits';

  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <ErrorNote message={errors.value.general} />
      {canWrite.value && (
        <p class="help">
          {running
            ? `${atOnce} apply at once: ${service.name} restarts with them (a config deployment). Everything else applies at the next deployment.`
            : `${service.name} is not running: every change applies at its next deployment.`}
        </p>
      )}
      <form class="settings" onSubmit={save}>
        {built && text('set-install', 'Install command', 'installCommand')}
        {built && text('set-build', 'Build command', 'buildCommand')}
        {built && text('set-start', 'Start command', 'startCommand')}
        {!database && text('set-port', 'Port', 'internalPort', { inputMode: 'numeric', pattern: '[0-9]+', required: true })}
        {web && text('set-health', 'Health check path (empty: the default)', 'healthPath', { placeholder: '/health' })}
        {text('set-memory', 'Memory limit (e.g. 512m; empty: none)', 'memory')}
        {text('set-cpus', 'CPUs (e.g. 0.5; empty: none)', 'cpus', { inputMode: 'decimal' })}
        {text('set-releases', 'Releases kept for rollback', 'releasesKept', { inputMode: 'numeric', pattern: '[0-9]+', required: true })}
        <label>
          <input type="checkbox" disabled={disabled} checked={draft.value.autoRollback} onChange={(e) => set({ autoRollback: e.currentTarget.checked })} /> Roll back on its own when a new
          release misbehaves
        </label>
        {!database && text('set-release-command', 'Release command (runs before each new release takes traffic; empty: none)', 'releaseCommand', { placeholder: 'npm run migrate', class: 'mono', spellcheck: false })}
        {!database && (
          <label>
            <input
              type="checkbox"
              disabled={disabled}
              checked={draft.value.releaseCommandOnRollback}
              onChange={(e) => set({ releaseCommandOnRollback: e.currentTarget.checked })}
            />{' '}
            Run the release command on rollbacks too
          </label>
        )}
        {canWrite.value && <button type="submit">Save settings</button>}
        {lastSaved.value?.serviceId === service.id && <p role="status">{lastSaved.value.note}</p>}
      </form>
    </section>
  );
}
