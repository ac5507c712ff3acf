import { createServer } from 'node:http';
import Provider, { type AccountClaims } from 'oidc-provider';
import { freePort } from './net.js';

/** What the provider says of each login: its e-mail, whether verified, its groups, its name. */
export type TestAccounts = Map<string, Omit<AccountClaims, 'sub'>>;

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims by login; the dev login form takes any login and any password. */
  accounts: TestAccounts;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the `oidc-provider` package) on a loopback port, with one confidential client whose
 * redirect URIs are `redirectUris`. Its development login form signs in any login; `accounts` gives each its claims.
 */
export async function startOidcProvider(redirectUris: string[]): Promise<TestOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts: TestAccounts = new Map();
  const clientId = 'slipway';
  const clientSecret = 'provider-client-secret-7f3a9c1e5b';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    cookies: { keys: ['test-cookie-key-for-the-provider'] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...(accounts.get(id) ?? {}) }) }),
  });
  // Its own failures are the test's to see in the answers, not on stderr.
  provider.on('server_error', () => undefined);
  const server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by name, as a browser keeps them for one site (attributes aside). */
export class CookieJar {
  private cookies = new Map<string, string>();

  take(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string) {
    return this.cookies.get(name);
  }

  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** One request, redirects not followed, cookies sent and kept. */
export async function hop(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { cookie: jar.header(), 'user-agent': 'oidc-test' };
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(url, { method: init.method ?? 'GET', headers, redirect: 'manual', ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}) });
  jar.take(response.headers);
  const location = response.headers.get('location');
  return { status: response.status, location: location === null ? null : new URL(location, url).href, text: await response.text(), headers: response.headers };
}

/**
 * A person's round trip as a browser makes it: from Slipway's start through the provider's login and consent
 * forms (logging in as `login`) to the provider's redirect back to Slipway's callback, which is returned unfollowed.
 */
export async function throughProvider(provider: TestOidcProvider, startUrl: string, login: string, jars = { slipway: new CookieJar(), provider: new CookieJar() }) {
  const start = await hop(jars.slipway, startUrl);
  if (start.status !== 302 || !start.location) throw new Error(`start: ${start.status} ${start.text.slice(0, 200)}`);
  if (!start.location.startsWith(provider.issuer)) return { start, callbackUrl: null, jars };
  let next = await hop(jars.provider, start.location);
  for (let step = 0; step < 12; step++) {
    if (next.location && !next.location.startsWith(provider.issuer)) return { start, callbackUrl: next.location, jars };
    if (next.location) {
      next = await hop(jars.provider, next.location);
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(next.text)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(next.text)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${next.status} without a form: ${next.text.slice(0, 300)}`);
    const form: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt };
    next = await hop(jars.provider, new URL(action.replace(/&amp;/g, '&'), provider.issuer).href, { method: 'POST', form });
  }
  throw new Error('the provider never sent the browser back');
}
