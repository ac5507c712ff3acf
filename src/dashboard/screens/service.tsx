import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useShownProject } from '../shown-project.js';
import { useLocation, useRoute } from 'preact-iso';
import { api, messageOf } from '../api.js';
import { DatabaseBrowser } from '../components/database-browser.js';
import { DatabaseConsole } from '../components/database-console.js';
import { Domains } from '../components/domains.js';
import { ErrorNote } from '../components/error-note.js';
import { BackupsTab } from '../components/service-tabs/backups-tab.js';
import { ConnectTab } from '../components/service-tabs/connect-tab.js';
import { DeploymentLog, type Explanation } from '../components/service-tabs/deployment-log.js';
import { DeploymentsTab } from '../components/service-tabs/deployments-tab.js';
import { JobsTab } from '../components/service-tabs/jobs-tab.js';
import { LogsTab } from '../components/service-tabs/logs-tab.js';
import { OverviewTab } from '../components/service-tabs/overview-tab.js';
import { ReleasesTab } from '../components/service-tabs/releases-tab.js';
import { RunningOnly } from '../components/service-tabs/running-only.js';
import { engineOf, FINISHED, type Overview, type Release } from '../components/service-tabs/service-view.js';
import { SettingsTab } from '../components/service-tabs/settings-tab.js';
import { TerminalTab } from '../components/service-tabs/terminal-tab.js';
import { canWrite } from '../session.js';
import { Badge } from '../components/ui/badge.js';
import { confirmDialog } from '../components/ui/dialog.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { Tabs, type Tab } from '../components/ui/tabs.js';
import { Variables } from '../components/variables.js';
import { useLiveReload } from '../live-reload.js';
import { deletionOf } from '../service-deletion.js';

type AppTab = 'overview' | 'deployments' | 'logs' | 'terminal' | 'jobs' | 'variables' | 'domains' | 'releases' | 'settings';
type DatabaseTab = 'overview' | 'data' | 'console' | 'backups' | 'connect' | 'variables' | 'settings';

const APP_TABS: Tab<AppTab>[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'deployments', label: 'Deployments' },
  { id: 'logs', label: 'Logs' },
  { id: 'jobs', label: 'Jobs' },
  { id: 'variables', label: 'Variables' },
  { id: 'domains', label: 'Domains' },
  { id: 'releases', label: 'Releases' },
  { id: 'settings', label: 'Settings' },
];
/** A shell in the running container: for those who may deploy the service, after its logs. */
const TERMINAL_TAB: Tab<AppTab> = { id: 'terminal', label: 'Terminal' };
/** A static site runs no container of its own: it has no tab for jobs. */
const appTabs = (mayDeploy: boolean, isStatic: boolean) => {
  const tabs = isStatic ? APP_TABS.filter((t) => t.id !== 'jobs') : APP_TABS;
  return mayDeploy ? [...tabs.slice(0, 3), TERMINAL_TAB, ...tabs.slice(3)] : tabs;
};
const DATABASE_TABS: Tab<DatabaseTab>[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'data', label: 'Data' },
  { id: 'console', label: 'Console' },
  { id: 'backups', label: 'Backups' },
  { id: 'connect', label: 'Connect' },
  { id: 'variables', label: 'Variables' },
  { id: 'settings', label: 'Settings' },
];

/** A service, one tab per concern (`?tab=`); a database has its own tabs and no build controls. */
export function ServiceScreen() {
  const { params, query } = useRoute();
  const { path, route } = useLocation();
  const serviceId = params.serviceId!;
  const overview = useSignal<Overview | null>(null);
  const releases = useSignal<Release[]>([]);
  const suggestions = useSignal<string[]>([]);
  // A link to one deployment (a notification, the CLI) opens its log.
  const watching = useSignal<string | null>(query.deployment ?? null);
  const explanation = useSignal<Explanation | null>(null);
  const error = useSignal<string | null>(null);

  const load = async () => {
    const at = { params: { path: { serviceId } } };
    const [o, r, k] = await Promise.all([
      api.GET('/api/services/{serviceId}/overview', at),
      api.GET('/api/services/{serviceId}/releases', at),
      api.GET('/api/services/{serviceId}/suggestion-keys', at),
    ]);
    if (o.error) return void (error.value = messageOf(o.error));
    const newestBefore = overview.value?.deployments[0]?.id ?? null;
    overview.value = o.data;
    releases.value = r.data?.releases ?? [];
    suggestions.value = (k.data?.suggestions ?? []).map((x) => x.key);
    // A new deployment, started here or anywhere else, is followed, unless an older one's log was chosen.
    if (watching.value === null || watching.value === newestBefore) watching.value = o.data.deployments[0]?.id ?? null;
  };
  useEffect(() => {
    void load();
  }, [serviceId]);
  // Whoever changes the service (another person, the CLI, git push, a webhook, the scheduler), the page follows.
  useLiveReload((change) => change.serviceId === serviceId, load);
  useShownProject(overview.value?.service.projectId);

  /** A deployment just started here: its log, on the tab that shows it. */
  const follow = (deploymentId: string, database: boolean) => {
    watching.value = deploymentId;
    route(`${path}?${new URLSearchParams({ ...query, tab: database ? 'overview' : 'deployments' })}`, true);
  };
  const act = async (run: () => Promise<{ error?: unknown }>) => {
    const { error: failed } = await run();
    error.value = failed ? messageOf(failed) : null;
    await load();
  };
  const deploy = (database: boolean) =>
    act(async () => {
      const answer = await api.POST('/api/services/{serviceId}/deployments', { params: { path: { serviceId } } });
      if (answer.data) follow(answer.data.deployment.id, database);
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
      if (answer.data) follow(answer.data.deployment.id, false);
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
  if (!o)
    return (
      <section>
        <ErrorNote message={error.value} />
        {!error.value && <Skeleton />}
      </section>
    );
  const s = o.service;
  const engine = engineOf(s);
  const running = releases.value.some((r) => r.current);
  const variables = <Variables serviceId={serviceId} engine={engine} variables={o.env} suggestions={suggestions.value} changed={load} />;
  const settings = <SettingsTab service={s} running={running} changed={load} remove={() => void remove()} />;
  const overviewTab = <OverviewTab overview={o} releases={releases.value} deploy={() => void deploy(engine !== null)} />;
  return (
    <section class="service-page">
      <div class="page-header">
        <h1>
          {s.name} <Badge status={s.status} />
        </h1>
      </div>
      <ErrorNote message={error.value} />
      {engine === null ? (
        <Tabs label={`Service ${s.name}`} tabs={appTabs(canWrite.value, s.runtimeMode === 'static')} fallback={query.deployment ? 'deployments' : undefined}>
          {(tab) =>
            ({
              overview: overviewTab,
              deployments: (
                <DeploymentsTab
                  deployments={o.deployments}
                  releases={releases.value}
                  watching={watching}
                  explanation={explanation.value}
                  abort={(id) => void abort(id)}
                  explain={(id) => void explain(id)}
                  isOver={isOver}
                />
              ),
              logs: <LogsTab serviceId={serviceId} lastDeployedAt={s.lastDeployedAt} />,
              terminal: canWrite.value ? <TerminalTab key={s.lastDeployedAt ?? 'never'} serviceId={serviceId} running={s.status === 'active'} /> : null,
              jobs: <JobsTab serviceId={serviceId} />,
              variables,
              domains: <Domains serviceId={serviceId} domains={o.domains} changed={load} />,
              releases: <ReleasesTab releases={releases.value} rollback={(r) => void rollback(r)} />,
              settings,
            })[tab]
          }
        </Tabs>
      ) : (
        <Tabs label={`Database ${s.name}`} tabs={DATABASE_TABS}>
          {(tab) =>
            ({
              overview: (
                <>
                  {overviewTab}
                  <h2>Deployment log</h2>
                  <DeploymentLog watching={watching.value} explanation={null} isOver={isOver} />
                </>
              ),
              data: (
                <RunningOnly running={s.status === 'active'}>
                  <DatabaseBrowser serviceId={serviceId} />
                </RunningOnly>
              ),
              console: (
                <RunningOnly running={s.status === 'active'}>
                  <DatabaseConsole serviceId={serviceId} engine={engine} />
                </RunningOnly>
              ),
              backups: <BackupsTab serviceId={serviceId} serviceName={s.name} engine={engine} />,
              connect: <ConnectTab service={s} engine={engine} />,
              variables,
              settings,
            })[tab]
          }
        </Tabs>
      )}
    </section>
  );
}
