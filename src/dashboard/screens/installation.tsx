import { ApiKeys } from '../components/api-keys.js';
import { Cluster } from '../components/cluster.js';
import { Connections } from '../components/connections.js';
import { GeneralSettings } from '../components/general-settings.js';
import { NotificationChannels } from '../components/notification-channels.js';
import { PeopleTab } from '../components/people/people-tab.js';
import { ReadModelHealth } from '../components/read-model-health.js';
import { Tabs, type Tab } from '../components/ui/tabs.js';
import { managesPeople } from '../rights.js';
import { session } from '../session.js';

const PANELS = {
  health: ReadModelHealth,
  notifications: NotificationChannels,
  people: PeopleTab,
  cluster: Cluster,
  settings: GeneralSettings,
  connections: Connections,
  keys: ApiKeys,
};

/** The installation: what an all-project key manages, and the health of the whole, one tab each. */
export function InstallationScreen() {
  // The cluster, settings, connections and keys are the installation's own: its owners' (a person's role) or an
  // all-project key's; an admin or a member gets no tab that would answer 403.
  const installation = session.value?.projectIds === null && (session.value.role === null || session.value.role === 'owner');
  const allProjectWriter = session.value?.access === 'write' && installation;
  const tabs: Tab<keyof typeof PANELS>[] = [
    { id: 'health', label: 'Health' },
    { id: 'notifications', label: 'Notifications' },
    ...(managesPeople.value ? [{ id: 'people' as const, label: 'People' }] : []),
    ...(installation ? [{ id: 'cluster' as const, label: 'Cluster' }] : []),
    ...(allProjectWriter
      ? [
          { id: 'settings' as const, label: 'Settings' },
          { id: 'connections' as const, label: 'Connections' },
          { id: 'keys' as const, label: 'API keys' },
        ]
      : []),
  ];
  return (
    <section>
      <div class="page-header">
        <div>
          <h1>Installation</h1>
          <p>
            The health of this Slipway, where it sends notifications{managesPeople.value ? ', who uses it' : ''}
            {allProjectWriter ? ', its settings, connections and API keys' : ''}.
          </p>
        </div>
      </div>
      <Tabs label="Installation" tabs={tabs}>
        {(selected) => {
          const Panel = PANELS[selected];
          return <Panel />;
        }}
      </Tabs>
    </section>
  );
}
