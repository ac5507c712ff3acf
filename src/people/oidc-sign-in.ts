import { createHash } from 'node:crypto';
import type { Configuration } from 'openid-client';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { oidcConfiguration } from '../../commands/settings/oidc-handlers.js';
import type { OidcConfiguration } from '../../commands/settings/oidc-events.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../outbound/forbidden-destination.js';
import { OidcRefused } from './oidc-claims.js';
import { authorizationRequest, discoverProvider, finishSignIn, OidcDiscoveryError } from './oidc-client.js';
import { personFor, type OidcDirectory } from './oidc-people.js';
import { PendingSignIns } from './oidc-pending.js';

/** A provider's metadata and keys are read again after this long (and at once after a settings change). */
const DISCOVERY_TTL_MS = 10 * 60_000;

export interface OidcSignInDeps {
  directory: OidcDirectory;
  outbound: DestinationPolicy;
  /** The command context sign-ins read settings with and make people under. */
  command: (correlationId: string) => CommandContext;
}

/** The browser's round trip through the provider: from the start's redirect to the person it signs in. */
export class OidcSignIn {
  readonly pending = new PendingSignIns();
  private discovered: { key: string; at: number; config: Configuration } | null = null;

  constructor(private readonly deps: OidcSignInDeps) {}

  private async provider(settings: OidcConfiguration): Promise<Configuration> {
    const key = createHash('sha256').update(JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret])).digest('hex');
    if (this.discovered?.key === key && Date.now() - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.config;
    try {
      const config = await discoverProvider(settings, this.deps.outbound);
      this.discovered = { key, at: Date.now(), config };
      return config;
    } catch (error) {
      if (error instanceof OidcDiscoveryError || error instanceof ForbiddenDestinationError) throw new OidcRefused('provider');
      throw error;
    }
  }

  private async settings(correlationId: string): Promise<OidcConfiguration> {
    const settings = await oidcConfiguration(this.deps.command(correlationId));
    if (!settings) throw new OidcRefused('not_configured');
    return settings;
  }

  /** The provider's authorization URL, and the key of the pending sign-in for the browser's cookie. */
  async start(correlationId: string, redirectUri: string, next: string, address: string): Promise<{ url: URL; key: string }> {
    const settings = await this.settings(correlationId);
    const { url, checks } = await authorizationRequest(await this.provider(settings), redirectUri, settings.groupsClaim);
    return { url, key: this.pending.add(checks, next, address) };
  }

  /**
   * The person the provider's answer signs in, and where they land. `query` is the callback's query string as
   * it came; `key` the browser's cookie.
   */
  async finish(correlationId: string, key: string | undefined, query: URLSearchParams): Promise<{ userId: string; next: string; position: string | null }> {
    const pending = this.pending.take(key);
    if (!pending) throw new OidcRefused('expired');
    if (query.has('error')) throw new OidcRefused('denied');
    const settings = await this.settings(correlationId);
    const config = await this.provider(settings);
    let claims;
    try {
      claims = await finishSignIn(config, new URL(`${pending.redirectUri}?${query}`), pending);
    } catch (error) {
      throw new OidcRefused(isUnreachable(error) ? 'provider' : 'invalid');
    }
    const command = this.deps.command(correlationId);
    const { userId, position } = await personFor(this.deps.directory, command, settings.issuer, claims, settings);
    return { userId, next: pending.next, position };
  }
}

/** A failure to reach the provider, as opposed to an answer that failed a check. */
function isUnreachable(error: unknown): boolean {
  const e = error as { name?: string; cause?: unknown };
  return error instanceof ForbiddenDestinationError || e.cause instanceof ForbiddenDestinationError || e.name === 'TypeError' || e.name === 'TimeoutError' || e.name === 'AbortError';
}
