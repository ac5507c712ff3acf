import * as client from 'openid-client';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../outbound/forbidden-destination.js';
import { guardedFetch } from './oidc-fetch.js';

/** What reaching the provider needs. */
export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The provider could not be reached, or its metadata is not an OpenID provider's: the message may be shown. */
export class OidcDiscoveryError extends Error {
  override readonly name = 'OidcDiscoveryError';
}

/** The claims of a signed-in person, from the ID token and (for what it lacks) the userinfo endpoint. */
export type OidcClaims = Record<string, unknown> & { sub: string };

/** http only where nothing travels between machines: an issuer on this machine (tests, a local provider). */
export const isLoopbackHost = (host: string) => host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

/**
 * The provider's configuration (discovery), through the outbound policy. Errors are summed up in one
 * sentence: the provider's own answer is never repeated to the browser.
 */
export async function discoverProvider(settings: OidcClientSettings, policy: DestinationPolicy): Promise<client.Configuration> {
  const issuer = new URL(settings.issuer);
  const insecure = issuer.protocol === 'http:';
  if (insecure && !isLoopbackHost(issuer.hostname)) throw new OidcDiscoveryError('the issuer must be an https URL (http only on a loopback address)');
  try {
    return await client.discovery(issuer, settings.clientId, undefined, client.ClientSecretBasic(settings.clientSecret), {
      [client.customFetch]: guardedFetch(policy),
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    const refused = error instanceof ForbiddenDestinationError ? error : (error as { cause?: unknown }).cause;
    if (refused instanceof ForbiddenDestinationError) throw refused;
    throw new OidcDiscoveryError(`could not read the provider's discovery document at ${issuer.origin}: ${summary(error)}`);
  }
}

/** One line about a failure, without the provider's body. */
function summary(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return [e.message ?? 'unknown error', cause].filter(Boolean).join(': ').slice(0, 300);
}

/** What a sign-in keeps until the provider sends the browser back. */
export interface PendingChecks {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
}

/** The provider's authorization URL for a new sign-in (code flow, PKCE S256), and the checks its answer must pass. */
export async function authorizationRequest(config: client.Configuration, redirectUri: string, groupsClaim: string | null): Promise<{ url: URL; checks: PendingChecks }> {
  const checks = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), redirectUri };
  const offered = config.serverMetadata().scopes_supported ?? [];
  const scopes = ['openid', 'email', 'profile', ...(groupsClaim && offered.includes(groupsClaim) ? [groupsClaim] : [])];
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  });
  return { url, checks };
}

/**
 * The code exchanged and the ID token checked by openid-client (state, nonce, issuer, audience, signature,
 * PKCE); claims the ID token lacks are read from the userinfo endpoint, for the same subject.
 */
export async function finishSignIn(config: client.Configuration, callbackUrl: URL, checks: PendingChecks): Promise<OidcClaims> {
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.verifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  });
  const idClaims = tokens.claims()!;
  if (!config.serverMetadata().userinfo_endpoint) return { ...idClaims };
  const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
  return { ...info, ...idClaims };
}
