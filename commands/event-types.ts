import { apiKeyEvents } from './api-key/events.js';
import { autoDeployEvents } from './auto-deploy/events.js';
import { backupEvents } from './backup/events.js';
import { backupSettingsEvents } from './backup-settings/events.js';
import { certificateEvents } from './certificate/events.js';
import { clusterEvents } from './cluster/events.js';
import { databaseEvents } from './database/events.js';
import { deploymentEvents, deploymentLogEvents } from './deployment/events.js';
import { execSessionEvents } from './exec-session/events.js';
import { importEvents } from './import/events.js';
import { invitationEvents } from './invitation/events.js';
import { jobEvents } from './job/events.js';
import { jobRunEvents, jobRunLogEvents } from './job-run/events.js';
import { notificationEvents } from './notification/events.js';
import { notificationChannelEvents } from './notification-channel/events.js';
import { projectEvents } from './project/events.js';
import { releaseEvents } from './release/events.js';
import { reservationEvents } from './reservation/events.js';
import { serviceEvents } from './service/events.js';
import { settingsEvents } from './settings/events.js';
import { oidcSettingsEvents } from './settings/oidc-events.js';
import { userEvents } from './user/events.js';

/** Every event type the write side can record, with its schema: what an auditor may meet in the log. */
export const ALL_EVENT_SCHEMAS = {
  ...apiKeyEvents,
  ...autoDeployEvents,
  ...backupEvents,
  ...backupSettingsEvents,
  ...certificateEvents,
  ...clusterEvents,
  ...databaseEvents,
  ...deploymentEvents,
  ...deploymentLogEvents,
  ...execSessionEvents,
  ...importEvents,
  ...invitationEvents,
  ...jobEvents,
  ...jobRunEvents,
  ...jobRunLogEvents,
  ...notificationChannelEvents,
  ...notificationEvents,
  ...projectEvents,
  ...releaseEvents,
  ...reservationEvents,
  ...serviceEvents,
  ...settingsEvents,
  ...oidcSettingsEvents,
  ...userEvents,
};

export const ALL_EVENT_TYPES = Object.keys(ALL_EVENT_SCHEMAS).sort();
