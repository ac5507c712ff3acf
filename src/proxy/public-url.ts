import { issuesCertificates, type GeneralSettingsValues } from '../installation-settings.js';
import type { Config } from '../config.js';

/** How the front proxy answers a service's hostname. */
export interface PublicAddress {
  readonly scheme: 'http' | 'https';
  readonly port: number;
}

const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/** `scheme://hostname`, with the proxy's port when it is not the scheme's default. Every URL an answer shows for a hostname is made here. */
export function publicUrl(hostname: string, { scheme, port }: PublicAddress): string {
  return `${scheme}://${hostname}${port === DEFAULT_PORTS[scheme] ? '' : `:${port}`}`;
}

/** HTTPS on the proxy's HTTPS port when Caddy issues certificates (it then redirects plain HTTP), else HTTP on its HTTP port. */
export function publicAddressOf(config: Pick<Config, 'proxy'>, settings: GeneralSettingsValues): PublicAddress {
  return issuesCertificates({ config }, settings) ? { scheme: 'https', port: config.proxy.httpsPort } : { scheme: 'http', port: config.proxy.httpPort };
}

/** The address in force now: HTTPS can be switched by `PATCH /api/settings`. */
export const currentPublicAddress = async (app: { config: Pick<Config, 'proxy'>; settings(): Promise<GeneralSettingsValues> }) =>
  publicAddressOf(app.config, await app.settings());
