import type { components } from './api-types.js';

/** What started a deployment, as a person says it (the CLI's list, the dashboard's Deployments tab). */
export const TRIGGER_WORDS: Record<components['schemas']['Deployment']['trigger'], string> = {
  manual: 'requested',
  auto: 'by Slipway',
  webhook: 'webhook',
  push: 'git push',
};
