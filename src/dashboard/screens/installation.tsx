import { ApiKeys } from '../components/api-keys.js';
import { Cluster } from '../components/cluster.js';
import { Connections } from '../components/connections.js';
import { GeneralSettings } from '../components/general-settings.js';
import { NotificationChannels } from '../components/notification-channels.js';
import { ReadModelHealth } from '../components/read-model-health.js';
import { session } from '../session.js';

/** The installation: what an all-project key manages, and the health of the whole. */
export function InstallationScreen() {
  const allProjectWriter = session.value?.access === 'write' && session.value.projectIds === null;
  return (
    <section>
      <h1>Installation</h1>
      <ReadModelHealth />
      <NotificationChannels />
      {session.value?.projectIds === null && <Cluster />}
      {allProjectWriter && <GeneralSettings />}
      {allProjectWriter && <Connections />}
      {allProjectWriter && <ApiKeys />}
    </section>
  );
}
