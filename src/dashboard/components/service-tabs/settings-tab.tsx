import { canWrite } from '../../session.js';
import { AutoDeploy } from '../auto-deploy.js';
import { DangerButton } from '../danger-button.js';
import { ServiceSettings } from '../service-settings.js';
import { isFromGit, type Overview } from './service-view.js';

/** The form is made again when a setting it shows changed (someone saved it), not whenever the service did. */
const settingsKeyOf = (s: Overview['service']) =>
  JSON.stringify([s.installCommand, s.buildCommand, s.startCommand, s.internalPort, s.healthCheck, s.resources, s.releasesKept, s.autoRollback]);

/** How the service builds and runs, when it deploys by itself (a Git source), and deleting it. */
export function SettingsTab({ service, running, changed, remove }: { service: Overview['service']; running: boolean; changed: () => Promise<void>; remove: () => void }) {
  return (
    <>
      <ServiceSettings key={settingsKeyOf(service)} service={service} running={running} changed={changed} />
      {isFromGit(service) && service.repoUrl !== 'push' && <AutoDeploy serviceId={service.id} />}
      {canWrite.value && (
        <>
          <h2>Delete</h2>
          <DangerButton label="Delete service…" what={service.name} onClick={remove} />
        </>
      )}
    </>
  );
}
