import { isIP } from 'node:net';
import { createDestinationPolicy, type DestinationPolicy } from '../../src/outbound/destination-policy.js';

/**
 * The `allowedDestinations` entry of exactly the server at `url` (its address and port): tests that run
 * servers on loopback allow those and nothing more.
 */
export function destinationOf(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const address = isIP(host) ? host : host === 'localhost' ? '127.0.0.1' : null;
  if (!address) throw new Error(`${url}: a test server is reached by its address`);
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** A policy (the installation's defaults) that also lets through exactly the servers at `urls`. */
export function policyAllowing(...urls: string[]): DestinationPolicy {
  const allowed = urls.map(destinationOf);
  return createDestinationPolicy({ rules: async () => ({ allowed, denyPrivate: false }) });
}

/** `env` with the servers at `urls` added to `SLIPWAY_ALLOW_DESTINATIONS`. */
export function allowingIn(env: Record<string, string>, ...urls: string[]): Record<string, string> {
  const entries = [...(env.SLIPWAY_ALLOW_DESTINATIONS ?? '').split(',').filter(Boolean), ...urls.map(destinationOf)];
  return { ...env, SLIPWAY_ALLOW_DESTINATIONS: [...new Set(entries)].join(',') };
}

/**
 * The servers an environment points Slipway at itself (the Git base URL, the DNS providers' API URLs),
 * when they run on this machine: a test that sets them means Slipway to reach exactly those.
 */
export function allowingConfiguredServers(env: Record<string, string>): Record<string, string> {
  const local = ['SLIPWAY_GIT_BASE_URL', 'SLIPWAY_CLOUDFLARE_API_URL', 'SLIPWAY_DIGITALOCEAN_API_URL']
    .map((name) => env[name])
    .filter((url): url is string => url !== undefined && /^https?:\/\/(127\.|localhost|\[::1\])/.test(url));
  return local.length === 0 ? env : allowingIn(env, ...local);
}
