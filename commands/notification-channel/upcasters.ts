import { maskedUrl } from './destination.js';

/**
 * Version 1 kept a webhook's URL in the visible config, in clear. The log is never rewritten, so those events
 * still hold it; read back, the URL moves to `legacyUrl` (kept for delivery only) and the config shows its masked
 * form. Version 2 also names the stored secret fields, and an email config says whether STARTTLS is required.
 */
function upcastChannelData(data: Record<string, unknown>, type: string | undefined): Record<string, unknown> {
  const config = data.config as Record<string, unknown> | undefined;
  if (!config) return data;
  if (type === 'webhook' || typeof config.url === 'string') {
    const url = String(config.url);
    return { ...data, config: { ...config, url: maskedUrl(url) }, legacyUrl: url, secretFields: ['secret', 'url'] };
  }
  if (type === 'email' || typeof config.host === 'string') {
    return { ...data, config: { ...config, requireTLS: false }, secretFields: config.user ? ['password'] : [] };
  }
  return { ...data, secretFields: ['webhookUrl'] };
}

export const notificationChannelCreatedV1toV2 = (data: Record<string, unknown>): Record<string, unknown> => ({
  secretFields: [],
  ...upcastChannelData(data, String(data.type)),
});

/** Updates without a config changed no secret (a v1 update with a config carried all of them again). */
export const notificationChannelUpdatedV1toV2 = (data: Record<string, unknown>): Record<string, unknown> => upcastChannelData(data, undefined);
