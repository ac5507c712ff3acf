import { Secret, TOTP } from 'otpauth';
import { configureOidc, removeOidc } from '../../commands/settings/oidc-handlers.js';
import { startSmtpServer } from './notification-receivers.js';
import { destinationOf } from './outbound.js';
import type { TestServer } from './test-server.js';

const PASSWORD = 'a long enough password';

async function ok(s: TestServer, method: string, path: string, options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}) {
  const r = await s.call(method, path, options);
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

/**
 * The installation's mail settings set, removed and set again, through a real SMTP server the installation
 * allows for that while (the settings' allowedDestinations, put back after): invitations made while they are
 * set are mailed to it.
 */
async function withMailSettings(s: TestServer, run: () => Promise<void>) {
  const smtp = await startSmtpServer({ user: 'history', password: 'unused' }, { authOptional: true });
  try {
    const inForce = (await ok(s, 'GET', '/api/settings')).body.settings.allowedDestinations as string[];
    await ok(s, 'PATCH', '/api/settings', { body: { allowedDestinations: [...inForce, destinationOf(smtp.url)] } });
    const mail = { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'slipway@history.test' };
    await ok(s, 'PUT', '/api/settings/mail', { body: mail });
    await ok(s, 'DELETE', '/api/settings/mail');
    await ok(s, 'PUT', '/api/settings/mail', { body: { ...mail, from: 'people@history.test' } });
    await run();
    await ok(s, 'PATCH', '/api/settings', { body: { allowedDestinations: null } });
  } finally {
    await smtp.close();
  }
}

/**
 * Every event of people for a history: the first owner, invitations accepted and revoked, members given,
 * changed and taken out of `projectIds`, two factors on and off, a role changed, a name and a password changed, a person removed and
 * one erased; single sign-on configured and removed; the mail settings the invitations are mailed with. Idempotent on a fresh installation only (the first owner is made once).
 */
export async function runPeopleHistory(s: TestServer, projectIds: readonly string[]) {
  const [first, second] = projectIds as [string, string];
  await ok(s, 'POST', '/api/users/owner', { body: { email: 'owner@history.test', name: 'Owner', password: PASSWORD } });
  const invite = async (email: string, role: string, projects: { projectId: string; role: string }[] = []) =>
    (await ok(s, 'POST', '/api/invitations', { body: { email, role, projects } })).body as { invitation: { id: string }; url: string };
  const accept = async (url: string, name: string) => {
    const r = await ok(s, 'POST', `/api/invitations/${new URL(url).pathname.split('/').pop()}/accept`, { key: null, body: { name, password: PASSWORD } });
    return { id: r.body.user.id as string, cookie: r.headers.get('set-cookie')!.split(';')[0]! };
  };
  let member = { id: '', cookie: '' };
  await withMailSettings(s, async () => {
    member = await accept((await invite('member@history.test', 'member', [{ projectId: first, role: 'deployer' }])).url, 'Member');
  });
  const revoked = await invite('never@history.test', 'admin');
  await ok(s, 'DELETE', `/api/invitations/${revoked.invitation.id}`);
  await ok(s, 'PUT', `/api/projects/${second}/members/${member.id}`, { body: { role: 'admin' } });
  await ok(s, 'PUT', `/api/projects/${first}/members/${member.id}`, { body: { role: 'admin' } });
  await ok(s, 'DELETE', `/api/projects/${first}/members/${member.id}`);
  const signedIn = await ok(s, 'POST', '/api/sessions', { key: null, body: { email: 'member@history.test', password: PASSWORD } });
  const session = { key: null, headers: { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': signedIn.body.session.csrfToken as string } };
  const secret = (await ok(s, 'POST', '/api/users/me/totp', session)).body.secret as string;
  await ok(s, 'POST', '/api/users/me/totp/confirm', { ...session, body: { code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() } });
  await ok(s, 'POST', '/api/users/me/totp/disable', { ...session, body: { password: PASSWORD } });
  await ok(s, 'PATCH', '/api/users/me', { ...session, body: { name: 'A member', password: { current: PASSWORD, new: `${PASSWORD}, changed` } } });
  await ok(s, 'PATCH', `/api/users/${member.id}`, { body: { role: 'admin' } });
  await ok(s, 'DELETE', `/api/users/${member.id}`);
  const leaving = await accept((await invite('leaving@history.test', 'member', [{ projectId: second, role: 'admin' }])).url, 'Leaving');
  await ok(s, 'DELETE', `/api/users/${leaving.id}?erase=true`);
  // Single sign-on set, changed, removed and set again (directly: the route's discovery needs a provider, see oidc.test.ts).
  const oidc = { issuer: 'https://idp.history.test', clientId: 'slipway', clientSecret: 'history-oidc-secret', name: 'History IdP', allowedDomains: [], defaultRole: null, groupsClaim: null, groupRoles: {} };
  const command = s.app.commandContext('test');
  await configureOidc(command, oidc);
  await removeOidc(command);
  const { position } = await configureOidc(command, { ...oidc, allowedDomains: ['history.test'], defaultRole: 'member', groupsClaim: 'groups', groupRoles: { ops: 'admin' } });
  await s.app.settle(position);
}
