import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { fieldsByPath, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';

const PROVIDERS = ['github', 'gitlab', 'gitea', 'bitbucket', 'generic'] as const;
type Settings = NonNullable<GetAnswer<'/api/services/{serviceId}/auto-deploy'>['autoDeploy']>;
type Provider = (typeof PROVIDERS)[number];
type Delivery = GetAnswer<'/api/services/{serviceId}/auto-deploy/deliveries'>['deliveries'][number];
const fieldOf = fieldsByPath({ provider: 'provider' });

/**
 * The settings this form does not show, as the service has them. The API's PUT puts back the default of any
 * field not given, so they are sent again to be kept; a branch that follows the service's is not sent, so it
 * keeps following.
 */
const unshown = (s: Settings) => ({
  ...(s.followsServiceBranch ? {} : { branch: s.branch }),
  tagPattern: s.tagPattern,
  watchPaths: s.watchPaths,
  ignorePaths: s.ignorePaths,
  skipKeywords: s.skipKeywords,
});

/** Auto-deploy: the webhook URL, the secret once, and what each webhook delivery did. */
export function AutoDeploy({ serviceId }: { serviceId: string }) {
  const settings = useSignal<Settings | null>(null);
  const deliveries = useSignal<Delivery[]>([]);
  const loaded = useSignal(false);
  // The host a person picked; until then the select shows the saved one, so a slow load never undoes a pick.
  const picked = useSignal<Provider | null>(null);
  const secret = useSignal<string | null>(null);
  const errors = useSignal(NO_ERRORS);
  const path = { params: { path: { serviceId } } };
  const load = async () => {
    const [a, d] = await Promise.all([api.GET('/api/services/{serviceId}/auto-deploy', path), api.GET('/api/services/{serviceId}/auto-deploy/deliveries', path)]);
    settings.value = a.data?.autoDeploy ?? null;
    deliveries.value = d.data?.deliveries ?? [];
    loaded.value = true;
  };
  useEffect(() => {
    void load();
  }, [serviceId]);

  const provider = (): Provider => picked.value ?? settings.value?.provider ?? 'github';
  const save = async (enabled: boolean) => {
    const body = { enabled, provider: provider(), ...(settings.value ? unshown(settings.value) : {}) };
    const { data, error: failed } = await api.PUT('/api/services/{serviceId}/auto-deploy', { ...path, body });
    if (failed) return void (errors.value = formErrors(failed, fieldOf));
    errors.value = NO_ERRORS;
    secret.value = data.autoDeploy.secret ?? null;
    picked.value = null;
    await load();
  };
  const rotate = async () => {
    const confirmed = await confirmDialog({
      title: 'Replace the webhook secret?',
      body: 'Deliveries signed with the current secret are refused from now on, until the Git host is given the new one.',
      confirmLabel: 'Replace the secret',
      danger: true,
    });
    if (!confirmed) return;
    const { data, error: failed } = await api.POST('/api/services/{serviceId}/auto-deploy/rotate-secret', path);
    if (failed) return void (errors.value = { general: messageOf(failed), fields: {} });
    secret.value = data.autoDeploy.secret;
  };

  const s = settings.value;
  return (
    <section aria-labelledby="auto-deploy">
      <h2 id="auto-deploy">Auto-deploy</h2>
      <ErrorNote message={errors.value.general} />
      {s && (
        <p>
          {s.enabled ? 'On' : 'Off'} — {s.provider} pushes to <code>{s.branch}</code>. Webhook URL: <code>{s.webhookUrl}</code>
        </p>
      )}
      {s?.webhookWarning && (
        <p class="warning" role="note">
          {s.webhookWarning.charAt(0).toUpperCase() + s.webhookWarning.slice(1)}.
        </p>
      )}
      {secret.value && (
        <p class="secret" role="status">
          The secret, shown this once: <code>{secret.value}</code>
        </p>
      )}
      {canWrite.value && loaded.value && (
        <div class="inline">
          <label for="hook-provider">Git host</label>
          <select
            id="hook-provider"
            value={provider()}
            onChange={(e) => (picked.value = e.currentTarget.value as Provider)}
            {...invalidProps('hook-provider', errors.value.fields.provider)}
          >
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          <FieldError id="hook-provider" message={errors.value.fields.provider} />
          <button type="button" onClick={() => void save(true)}>
            {s?.enabled ? 'Save' : 'Turn on'}
          </button>
          {s?.enabled && (
            <button type="button" onClick={() => void save(false)}>
              Turn off
            </button>
          )}
          {s && (
            <button type="button" onClick={() => void rotate()}>
              New secret…
            </button>
          )}
        </div>
      )}
      {deliveries.value.length > 0 && (
        <table>
          <caption>Last webhook deliveries</caption>
          <TableHead columns={['When', 'Event', 'Verdict', 'Commit']} />
          <tbody>
            {deliveries.value.map((d, i) => (
              <tr key={i}>
                <td>{d.at.replace('T', ' ').slice(0, 19)}</td>
                <td>{d.event ?? ''}</td>
                <td>{d.verdict}</td>
                <td>{d.commitSha?.slice(0, 12) ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
