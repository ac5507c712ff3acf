import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
import { AutoDeploy } from '../components/auto-deploy.js';
import { Backups } from '../components/backups.js';
import { DatabaseBrowser } from '../components/database-browser.js';
import { DatabaseTls } from '../components/database-tls.js';
import { Imports, type ImportSource } from '../components/imports.js';
import { Domains } from '../components/domains.js';
import { HealthBadge, Usage } from '../components/service-health.js';
import { ServiceSettings } from '../components/service-settings.js';
import { LiveLog } from '../components/live-log.js';
import { Variables } from '../components/variables.js';
import { canWrite } from '../session.js';
import { TableHead } from '../components/table-head.js';
import { confirmDialog } from '../components/ui/dialog.js';
import { DangerButton } from '../components/danger-button.js';
import { deletionOf } from '../service-deletion.js';

type Overview = GetAnswer<'/api/services/{serviceId}/overview'>;
type Deployment = Overview['deployments'][number];
type Release = GetAnswer<'/api/services/{serviceId}/releases'>['releases'][number];
type Explanation = { summary: string; likelyCause: string; suggestedFix: string; commands: string[] };

const FINISHED = new Set(['succeeded', 'failed', 'aborted', 'canceled', 'rolled_back']);

export function ServiceScreen() {
  const { params } = useRoute();
  const { route } = useLocation();
  const serviceId = params.serviceId!;
  const overview = useSignal<Overview | null>(null);
  const releases = useSignal<Release[]>([]);
  const suggestions = useSignal<string[]>([]);
  const runtimeFilter = useSignal('');
  const watching = useSignal<string | null>(null);
  const explanation = useSignal<Explanation | null>(null);
  const error = useSignal<string | null>(null);

  const load = async () => {
    const path = { params: { path: { serviceId } } };
    const [o, r, k] = await Promise.all([
      api.GET('/api/services/{serviceId}/overview', path),
      api.GET('/api/services/{serviceId}/releases', path),
      api.GET('/api/services/{serviceId}/suggestion-keys', path),
    ]);
    if (o.error) return void (error.value = messageOf(o.error));
    overview.value = o.data;
    releases.value = r.data?.releases ?? [];
    suggestions.value = (k.data?.suggestions ?? []).map((x) => x.key);
    watching.value ??= o.data.deployments[0]?.id ?? null;
  };
  useEffect(() => {
    void load();
  }, [serviceId]);

  const act = async (run: () => Promise<{ error?: unknown }>) => {
    const { error: failed } = await run();
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const deploy = () =>
    act(async () => {
      const answer = await api.POST('/api/services/{serviceId}/deployments', { params: { path: { serviceId } } });
      if (answer.data) watching.value = answer.data.deployment.id;
      return answer;
    });
  const abort = (id: string) => act(() => api.POST('/api/deployments/{deploymentId}/abort', { params: { path: { deploymentId: id } } }));
  const rollback = (release: Release) =>
    act(async () => {
      const confirmed = await confirmDialog({
        title: `Roll ${overview.value!.service.name} back to v${release.version}?`,
        body: 'A deployment starts now: the image of that release runs again with the configuration it had then.',
        confirmLabel: `Roll back to v${release.version}`,
      });
      if (!confirmed) return {};
      const answer = await api.POST('/api/services/{serviceId}/rollback', { params: { path: { serviceId } }, body: { releaseId: release.id, config: 'release' } });
      if (answer.data) watching.value = answer.data.deployment.id;
      return answer;
    });
  const explain = async (id: string) => {
    const { data, error: failed } = await api.POST('/api/deployments/{deploymentId}/explain-failure', { params: { path: { deploymentId: id }, query: {} }, body: { providerId: 'builtin' } });
    if (failed) return void (error.value = messageOf(failed));
    explanation.value = data.explanation;
  };
  const remove = async () => {
    const o = overview.value!;
    const { title, body } = deletionOf(o);
    if (!(await confirmDialog({ title, body, confirmLabel: 'Delete service', danger: true, typeToConfirm: o.service.name }))) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}', { params: { path: { serviceId } } });
    if (failed) return void (error.value = messageOf(failed));
    route('/');
  };
  const isOver = async () => {
    await load();
    const d = overview.value?.deployments.find((x) => x.id === watching.value);
    return !d || FINISHED.has(d.status);
  };

  const o = overview.value;
  if (!o) return error.value ? <ErrorNote message={error.value} /> : <p role="status">Loading…</p>;
  const s = o.service;
  const engine = s.repoUrl === 'database' ? (s.repoFullName ?? '').replace('database:', '') : null;
  const postgres = engine === 'postgres' || engine === 'timeseries';
  const currentRelease = releases.value.find((r) => r.current);
  const importSource: ImportSource | null = postgres ? 'postgres-url' : engine === 'redis' ? 'redis-url' : null;
  return (
    <section>
      <h1>
        {s.name} <span class={`status status-${s.status}`}>{s.status}</span>
      </h1>
      <ErrorNote message={error.value} />
      <dl class="facts">
        <dt>Address</dt>
        <dd>{s.primaryUrl ? <a href={s.primaryUrl}>{s.primaryUrl}</a> : '—'}</dd>
        <dt>Source</dt>
        <dd>{s.dockerImage ?? s.repoFullName ?? s.repoUrl}</dd>
        <dt>Current release</dt>
        <dd>{currentRelease ? `v${currentRelease.version}, ${currentRelease.createdAt.replace('T', ' ').slice(0, 16)}` : 'none'}</dd>
        <dt>Health</dt>
        <dd>
          <HealthBadge health={s.health} />
          {s.restarts > 0 && `, ${s.restarts} restart(s)`}
        </dd>
        <dt>Use</dt>
        <Usage usage={o.usage} resources={o.resources} />
      </dl>
      {canWrite.value && (
        <button type="button" onClick={() => void deploy()}>
          Deploy
        </button>
      )}

      <h2>Deployments</h2>
      <table>
        <TableHead columns={['Status', 'Kind', 'Started', 'Reason']} actions />
        <tbody>
          {o.deployments.map((d: Deployment) => (
            <tr key={d.id} aria-current={d.id === watching.value ? 'true' : undefined}>
              <td class={`status status-${d.status}`}>{d.status}</td>
              <td>{d.kind}</td>
              <td>{d.startedAt ?? d.createdAt}</td>
              <td>{d.reason ?? ''}</td>
              <td>
                <button type="button" onClick={() => (watching.value = d.id)}>
                  Log
                </button>
                {canWrite.value && !FINISHED.has(d.status) && (
                  <button type="button" onClick={() => void abort(d.id)}>
                    Abort
                  </button>
                )}
                {canWrite.value && (d.status === 'failed' || d.status === 'rolled_back') && (
                  <button type="button" onClick={() => void explain(d.id)}>
                    Explain
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {explanation.value && (
        <aside class="explanation" aria-label="Why it failed">
          <p>
            <strong>{explanation.value.summary}</strong>
          </p>
          <p>{explanation.value.likelyCause}</p>
          <p>{explanation.value.suggestedFix}</p>
          <pre>{explanation.value.commands.join('\n')}</pre>
        </aside>
      )}
      {watching.value && <LiveLog url={`/api/deployments/${watching.value}/stream`} label="Deployment log" isOver={isOver} />}

      {s.repoUrl === 'database' && s.status === 'active' && <DatabaseBrowser serviceId={serviceId} engine={engine!} />}
      {s.repoUrl === 'database' && <Backups serviceId={serviceId} serviceName={s.name} />}
      {postgres && <DatabaseTls serviceId={serviceId} />}
      {importSource && <Imports serviceId={serviceId} source={importSource} />}
      <Variables serviceId={serviceId} engine={engine} variables={o.env} suggestions={suggestions.value} changed={load} />
      <Domains serviceId={serviceId} domains={o.domains} changed={load} />
      <ServiceSettings key={s.updatedAt} service={s} running={currentRelease !== undefined} changed={load} />
      {s.repoUrl !== 'docker-image' && s.repoUrl !== 'database' && <AutoDeploy serviceId={serviceId} />}
      <h2>Runtime logs</h2>
      <label for="runtime-filter">Filter</label>
      <input id="runtime-filter" type="search" value={runtimeFilter.value} onInput={(e) => (runtimeFilter.value = e.currentTarget.value)} />
      {/* A new release has new output: its stream starts again. */}
      <LiveLog key={s.lastDeployedAt ?? 'never'} url={`/api/services/${serviceId}/runtime-logs/stream`} label="Runtime log" filter={runtimeFilter.value} />

      <h2>Releases</h2>
      <ul class="releases">
        {releases.value.map((r) => (
          <li key={r.id}>
            v{r.version} {r.current && <strong>(current)</strong>} {r.commitMessage ?? r.imageId.slice(0, 19)}{' '}
            {canWrite.value && !r.current && r.available && (
              <button type="button" onClick={() => void rollback(r)}>
                Roll back to this
              </button>
            )}
          </li>
        ))}
      </ul>
      {canWrite.value && (
        <>
          <h2>Delete</h2>
          <DangerButton label="Delete service…" what={s.name} onClick={() => void remove()} />
        </>
      )}
    </section>
  );
}
