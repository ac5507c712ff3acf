import type { Endpoint } from './endpoint.js';
import { aiProvidersApi } from './ai-providers.js';
import { autoDeployApi } from './auto-deploy.js';
import { backupsApi } from './backups.js';
import { clusterApi } from './cluster.js';
import { databaseApi } from './database.js';
import { deploymentsApi } from './deployments.js';
import { dnsProvidersApi } from './dns-providers.js';
import { domainsApi } from './domains.js';
import { envApi } from './env.js';
import { execApi } from './exec.js';
import { auditApi } from './audit.js';
import { changesApi } from './changes.js';
import { explainFailureApi } from './explain-failure.js';
import { gitApi } from './git.js';
import { healthApi } from './health.js';
import { importsApi } from './imports.js';
import { jobsApi } from './jobs.js';
import { jobRunsApi } from './job-runs.js';
import { apiKeysApi } from './api-keys.js';
import { metaApi } from './meta.js';
import { notificationChannelsApi } from './notification-channels.js';
import { oidcApi } from './oidc.js';
import { peopleApi } from './people.js';
import { invitationsApi } from './invitations.js';
import { mailSettingsApi } from './mail-settings.js';
import { projectsApi } from './projects.js';
import { releasesApi } from './releases.js';
import { servicesApi } from './services.js';
import { sessionsApi } from './sessions.js';
import { settingsApi } from './settings.js';

/** Every endpoint the server has, in the order the reference lists them. */
export const ENDPOINTS: readonly Endpoint[] = [
  projectsApi,
  servicesApi,
  envApi,
  domainsApi,
  deploymentsApi,
  execApi,
  releasesApi,
  jobRunsApi,
  autoDeployApi,
  gitApi,
  explainFailureApi,
  databaseApi,
  backupsApi,
  importsApi,
  jobsApi,
  settingsApi,
  dnsProvidersApi,
  aiProvidersApi,
  mailSettingsApi,
  apiKeysApi,
  sessionsApi,
  peopleApi,
  oidcApi,
  invitationsApi,
  notificationChannelsApi,
  clusterApi,
  auditApi,
  changesApi,
  healthApi,
  metaApi,
].flatMap((group) => Object.values(group));
