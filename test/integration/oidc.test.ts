import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createKey, createProject } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { CookieJar, hop, startOidcProvider, throughProvider } from '../helpers/oidc-provider.js';
import { destinationOf } from '../helpers/outbound.js';
import { freePort } from '../helpers/net.js';
import { rebuildEquals } from '../helpers/rebuild-check.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer({ SLIPWAY_LOG: 'json' });
t.teardown(() => s.close());
const provider = await startOidcProvider([`${s.url}/api/auth/oidc/callback`]);
t.teardown(() => provider.close());

/** Every answer the test saw, to look for the client secret in. */
const answers: string[] = [];
const call = async (method: string, path: string, options: Parameters<typeof s.call>[2] = {}) => {
  const r = await s.call(method, path, options);
  answers.push(JSON.stringify(r.body));
  return r;
};
const settings = (body: Record<string, unknown>) =>
  call('PUT', '/api/settings/oidc', { body: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, ...body } });

/** A person's sign-in through the provider as `login`; the callback's answer, and the session cookie it set. */
async function signIn(login: string, next = '/') {
  const { callbackUrl, jars, start } = await throughProvider(provider, `${s.url}/api/auth/oidc/start?next=${encodeURIComponent(next)}`, login);
  if (!callbackUrl) return { status: start.status, location: start.location, session: undefined, jars };
  const back = await hop(jars.slipway, callbackUrl);
  answers.push(back.text);
  return { status: back.status, location: back.location, session: jars.slipway.get('__Host-slipway_session'), jars };
}
const me = async (session: string) => (await call('GET', '/api/users/me', { key: null, headers: { cookie: `__Host-slipway_session=${session}` } })).body.user;
const refusedWith = (reason: string) => `${s.url}/?sso=${reason}`;

await call('POST', '/api/users/owner', { body: { email: 'owner@example.com', name: 'Owner', password: 'a long enough password' } });

t.test('settings: owners only, the issuer discovered before anything is saved, the secret never shown', async (t) => {
  const project = await createProject(s, 'Scoped');
  const scoped = await createKey(s, 'write', [project.id]);
  const invitation = await call('POST', '/api/invitations', { body: { email: 'admin@example.com', role: 'admin', projects: [] } });
  const token = new URL(invitation.body.url).pathname.split('/').pop()!;
  const accepted = await call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Admin', password: 'a long enough password' } });
  const admin = { key: null, headers: { cookie: accepted.headers.get('set-cookie')!.split(';')[0]! } };
  const adminCsrf = (await call('GET', '/api/sessions/current', admin)).body.session.csrfToken as string;
  const adminWrite = { ...admin, headers: { ...admin.headers, 'x-csrf-token': adminCsrf } };
  const body = { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret };
  for (const [who, options] of [['a project-scoped write key', { key: scoped.secret }], ['an admin', adminWrite]] as const) {
    assertError(t, await call('GET', '/api/settings/oidc', options), 403, 'forbidden', `GET by ${who}`);
    assertError(t, await call('PUT', '/api/settings/oidc', { ...options, body }), 403, 'forbidden', `PUT by ${who}`);
    assertError(t, await call('DELETE', '/api/settings/oidc', options), 403, 'forbidden', `DELETE by ${who}`);
  }

  assertError(t, await settings({}), 400, 'forbidden_destination', 'a loopback issuer the outbound policy does not allow');
  assertError(t, await settings({ issuer: 'http://idp.example.com' }), 400, 'validation_failed', 'http on a host that is not loopback');
  assertError(t, await settings({ defaultRole: 'owner' }), 400, 'validation_failed', 'owner is never a default role');
  assertError(t, await settings({ issuer: 'javascript:alert(1)' }), 400, 'validation_failed', 'not an http(s) URL');
  const closed = `http://127.0.0.1:${await freePort()}`;
  await call('PATCH', '/api/settings', { body: { allowedDestinations: [destinationOf(provider.issuer), destinationOf(closed)] } });
  const unreachable = await settings({ issuer: closed });
  t.equal(unreachable.status, 502, 'an issuer nobody answers at: 502');
  t.equal(unreachable.body.error.code, 'oidc_discovery_failed');
  const notAnIssuer = await settings({ issuer: `${provider.issuer}/not-an-issuer` });
  t.equal(notAnIssuer.status, 502, 'a server that is not an OpenID provider there: 502');
  t.notOk(JSON.stringify(notAnIssuer.body).includes('<'), 'its answer is not repeated');
  t.equal((await call('GET', '/api/settings/oidc')).body.oidc, null, 'nothing recorded');
  const events = (await call('GET', '/api/events?limit=500')).body;
  t.notOk(JSON.stringify(events).includes('OidcConfigured'), 'no event for the refused ones');
  t.same(await call('GET', '/api/auth/oidc', { key: null }).then((r) => r.body), { enabled: false, name: null }, 'the sign-in page offers nothing yet');
  t.equal((await hop(new CookieJar(), `${s.url}/api/auth/oidc/start`)).location, refusedWith('not_configured'));

  const saved = await settings({ defaultRole: 'member', name: 'Test IdP', groupsClaim: 'groups', groupRoles: { 'platform-admins': 'admin', staff: 'member' } });
  t.equal(saved.status, 200);
  t.match(saved.body.oidc, { issuer: provider.issuer, clientId: 'slipway', clientSecretSet: true, name: 'Test IdP', defaultRole: 'member', allowedDomains: [] });
  t.notOk('clientSecret' in saved.body.oidc, 'the answer holds no secret');
  t.same((await call('GET', '/api/settings/oidc')).body.oidc, saved.body.oidc, 'GET answers the same');
  t.same((await call('GET', '/api/auth/oidc', { key: null })).body, { enabled: true, name: 'Test IdP' }, 'the sign-in page learns the name only');
});

t.test('a first sign-in makes the person with the default role; the second finds them by their link', async (t) => {
  provider.accounts.set('grace', { email: 'Grace@Example.com', email_verified: true, name: 'Grace Hopper' });
  const first = await signIn('grace', '/projects');
  t.equal(first.status, 302);
  t.equal(first.location, `${s.url}/projects`, 'lands on next');
  t.ok(first.session, 'the session cookie is set');
  t.equal(first.jars.slipway.get('__Host-slipway_oidc'), undefined, 'the pending sign-in’s cookie is cleared');
  const grace = await me(first.session!);
  t.match(grace, { email: 'grace@example.com', name: 'Grace Hopper', role: 'member' });
  const session = await call('GET', '/api/sessions/current', { key: null, headers: { cookie: `__Host-slipway_session=${first.session}` } });
  t.match(session.body.session, { userId: grace.id, role: 'member', name: 'Grace Hopper' }, 'a session like a password sign-in’s');
  const mine = await call('GET', '/api/users/me/sessions', { key: null, headers: { cookie: `__Host-slipway_session=${first.session}` } });
  t.match(mine.body.sessions, [{ device: 'oidc-test', current: true }], 'the device is recorded as for a password sign-in');

  // The provider changes her e-mail: the link, not the e-mail, finds her.
  provider.accounts.set('grace', { email: 'grace.hopper@example.com', email_verified: true });
  const again = await signIn('grace');
  t.equal(again.location, `${s.url}/`);
  t.equal((await me(again.session!)).id, grace.id, 'the same person');
  const users = (await call('GET', '/api/users')).body.users as { name: string; email: string }[];
  t.same(users.filter((u) => u.name === 'Grace Hopper').map((u) => u.email), ['grace@example.com'], 'nobody new: Grace as she was');
});

t.test('groups map to the highest role; a password account with two factors is found by its verified e-mail, no code asked', async (t) => {
  provider.accounts.set('linus', { email: 'linus@example.com', email_verified: true, groups: ['staff', 'platform-admins', 'unknown'] });
  const linus = await signIn('linus');
  t.match(await me(linus.session!), { role: 'admin', name: 'linus' }, 'admin from platform-admins, named after the e-mail');
  const password = await call('POST', '/api/sessions', { key: null, body: { email: 'owner@example.com', password: 'a long enough password' } });
  const owner2fa = { key: null, headers: { cookie: password.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': password.body.session.csrfToken as string } };
  const { secret } = (await call('POST', '/api/users/me/totp', owner2fa)).body as { secret: string };
  t.equal((await call('POST', '/api/users/me/totp/confirm', { ...owner2fa, body: { code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() } })).status, 200);
  assertError(t, await call('POST', '/api/sessions', { key: null, body: { email: 'owner@example.com', password: 'a long enough password' } }), 401, 'two_factor_required', 'her password alone no longer signs in');
  provider.accounts.set('owner-at-idp', { email: 'OWNER@example.com', email_verified: true, groups: ['staff'] });
  const owner = await signIn('owner-at-idp');
  t.match(await me(owner.session!), { email: 'owner@example.com', role: 'owner', twoFactor: true }, 'the existing owner, as they are: the provider stands for the second factor');
});

t.test('refusals: unverified e-mail, another domain, no role, a removed person, a wrong or missing state', async (t) => {
  provider.accounts.set('unverified', { email: 'new@example.com', email_verified: false });
  t.equal((await signIn('unverified')).location, refusedWith('email'));
  provider.accounts.set('no-email', {});
  t.equal((await signIn('no-email')).location, refusedWith('email'));

  await settings({ defaultRole: 'member', allowedDomains: ['example.com'], name: 'Test IdP', groupsClaim: 'groups', groupRoles: { 'platform-admins': 'admin' } });
  provider.accounts.set('outsider', { email: 'eve@elsewhere.test', email_verified: true });
  t.equal((await signIn('outsider')).location, refusedWith('domain'));

  await settings({ name: 'Test IdP', groupsClaim: 'groups', groupRoles: { 'platform-admins': 'admin' } });
  provider.accounts.set('nobody', { email: 'nobody@example.com', email_verified: true, groups: ['interns'] });
  const none = await signIn('nobody');
  t.equal(none.location, refusedWith('no_role'));
  t.equal(none.session, undefined, 'no session');
  t.notOk((await call('GET', '/api/users')).body.users.some((u: { email: string }) => u.email === 'nobody@example.com'), 'and nobody made');

  provider.accounts.set('leaver', { email: 'leaver@example.com', email_verified: true, groups: ['platform-admins'] });
  const leaver = await me((await signIn('leaver')).session!);
  t.equal((await call('DELETE', `/api/users/${leaver.id}`)).status, 200);
  t.equal((await signIn('leaver')).location, refusedWith('removed'), 'by the link');
  provider.accounts.set('leaver-again', { email: 'leaver@example.com', email_verified: true, groups: ['platform-admins'] });
  t.equal((await signIn('leaver-again')).location, refusedWith('removed'), 'by the e-mail, from another provider account');

  provider.accounts.set('mallory', { email: 'mallory@example.com', email_verified: true, groups: ['platform-admins'] });
  const round = await throughProvider(provider, `${s.url}/api/auth/oidc/start`, 'mallory');
  const forged = new URL(round.callbackUrl!);
  forged.searchParams.set('state', 'not-the-state');
  t.equal((await hop(round.jars.slipway, forged.href)).location, refusedWith('invalid'), 'a wrong state');
  const replay = await throughProvider(provider, `${s.url}/api/auth/oidc/start`, 'mallory');
  t.equal((await hop(new CookieJar(), replay.callbackUrl!)).location, refusedWith('expired'), 'another browser (no cookie of the start)');
  const pending = replay.jars.slipway.header();
  t.equal((await hop(replay.jars.slipway, replay.callbackUrl!)).location, `${s.url}/`, 'the browser that started still can');
  const again = new CookieJar();
  again.take(new Headers([['set-cookie', pending]]));
  t.equal((await hop(again, replay.callbackUrl!)).location, refusedWith('expired'), 'but once: the same answer again is refused');
  const fresh = await throughProvider(provider, `${s.url}/api/auth/oidc/start`, 'mallory');
  const stripped = new URL(fresh.callbackUrl!);
  stripped.searchParams.delete('state');
  t.equal((await hop(fresh.jars.slipway, stripped.href)).location, refusedWith('invalid'), 'a missing state');
  t.equal((await hop(new CookieJar(), `${s.url}/api/auth/oidc/callback?error=access_denied&state=x`)).location, refusedWith('expired'));
});

t.test('next: a path of this site, never another host', async (t) => {
  provider.accounts.set('walker', { email: 'walker@example.com', email_verified: true, groups: ['platform-admins'] });
  for (const next of ['//evil.example', 'https://evil.example/', '/\\evil.example', 'evil.example']) {
    t.equal((await signIn('walker', next)).location, `${s.url}/`, `${next} lands on /`);
  }
});

t.test('the client secret is in no event, answer or log line; a rebuild equals the live read models', async (t) => {
  const events = await call('GET', '/api/events?limit=1000');
  t.ok(JSON.stringify(events.body).includes('OidcConfigured'), 'the configuration is in the history');
  const stored = (await s.app.store.readAll({ after: null, maxCount: 10_000 })).map((e) => JSON.stringify(e.data)).join('\n');
  t.notOk(stored.includes(provider.clientSecret), 'not in the log, even sealed fields aside');
  t.notOk(answers.some((a) => a.includes(provider.clientSecret)), `in none of the ${answers.length} answers`);
  t.notOk(s.logs().includes(provider.clientSecret), 'in no log line');
  const { rows } = await s.app.db.query<{ identity_index: string }>('select identity_index from people_identities');
  t.ok(rows.length >= 3 && rows.every((r) => !r.identity_index.includes('grace') && !r.identity_index.includes('linus')), 'links kept as blind indexes only');

  t.equal((await call('DELETE', '/api/settings/oidc')).status, 200);
  t.same((await call('GET', '/api/auth/oidc', { key: null })).body, { enabled: false, name: null });
  assertError(t, await call('DELETE', '/api/settings/oidc'), 404, 'not_found', 'nothing left to remove');
  await settings({ defaultRole: 'member', name: 'Again' });
  await rebuildEquals(t, s);
});
