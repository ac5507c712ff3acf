import { apiKeysProjector } from './api-keys.js';
import { auditProjector } from './audit.js';
import { autoDeployProjector } from './auto-deploy.js';
import { backupsProjector } from './backups.js';
import { clusterProjector } from './cluster.js';
import { deploymentsProjector } from './deployments.js';
import { domainsProjector } from './domains.js';
import { envProjector } from './env.js';
import { importsProjector } from './imports.js';
import { jobsProjector } from './jobs.js';
import { jobRunsProjector } from './job-runs.js';
import { notificationChannelsProjector } from './notification-channels.js';
import { peopleProjector } from './people.js';
import { projectsProjector } from './projects.js';
import { releasesProjector } from './releases.js';
import type { Projector } from './projector.js';
import { reservationsProjector } from './reservations.js';
import { retirementsProjector } from './retirements.js';
import { servicesProjector } from './services.js';
import { settingsProjector } from './settings.js';
import { oidcSettingsProjector } from './settings-oidc.js';
import { mailSettingsProjector } from './settings-mail.js';

export const ALL_PROJECTORS: readonly Projector[] = [
  projectsProjector,
  servicesProjector,
  envProjector,
  domainsProjector,
  deploymentsProjector,
  apiKeysProjector,
  auditProjector,
  reservationsProjector,
  retirementsProjector,
  backupsProjector,
  settingsProjector,
  importsProjector,
  releasesProjector,
  notificationChannelsProjector,
  autoDeployProjector,
  clusterProjector,
  peopleProjector,
  oidcSettingsProjector,
  mailSettingsProjector,
  jobsProjector,
  jobRunsProjector,
];
