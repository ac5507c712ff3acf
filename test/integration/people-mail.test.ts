import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Secret, TOTP } from 'otpauth';
import { slipwayWithInput } from '../helpers/cli-process.js';
import { createKey, createProject } from '../helpers/http-resources.js';
import { assertError } from '../helpers/http-errors.js';
import { startSmtpServer, type Mail } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
import { rebuildEquals } from '../helpers/rebuild-check.js';
import { startTestServer } from '../helpers/test-server.js';
import { trustedTestCertificate } from '../helpers/trusted-test-ca.js';

// Slipway's SMTP client verifies the server's certificate: this file runs again in a Node that trusts a test root.
const certificate = await trustedTestCertificate(fileURLToPath(import.meta.url));
if (certificate) {
  const { default: t } = await import('tap');

  const SMTP_LOGIN = { user: 'slipway', password: 'the-smtp-password-42' };
  const PASSWORD = 'a long enough password';
  // A real SMTP server over implicit TLS that wants a login; a port where nothing listens; a server that goes away.
  const smtp = await startSmtpServer(SMTP_LOGIN, { tls: certificate });
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const leaving = await startSmtpServer({ user: 'x', password: 'y' }, { authOptional: true });
  const allowed = [smtp.url, `http://127.0.0.1:${closedPort}`, leaving.url].map(destinationOf).join(',');
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: allowed, SLIPWAY_LOG: 'json' });
  let leavingOpen = true;
  t.teardown(() => Promise.all([s.close(), smtp.close(), leavingOpen ? leaving.close() : undefined]));

  const mailSettings = { host: 'localhost', port: smtp.port, tls: 'implicit', username: SMTP_LOGIN.user, password: SMTP_LOGIN.password, from: 'slipway@example.com' };
  const mailEvents = async () => ((await s.call('GET', '/api/events?limit=1000')).body.events as { type: string }[]).filter((e) => e.type.startsWith('MailSettings'));
  /** A mail's text: quoted-printable soft breaks joined, `=3D` back to `=`. */
  const textOf = (mail: Mail) => mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const signIn = (email: string, password: string) => s.call('POST', '/api/sessions', { key: null, body: { email, password } });
  const alertsAbout = (email: string) => smtp.mails.filter((m) => /failed sign-ins/.test(textOf(m)) && textOf(m).includes(`for ${email} from`));
  /** Until `count` mails matched: the server's mails are the only condition to wait on. */
  async function mailsMatching(match: (m: Mail) => boolean, count: number, timeoutMs = 20_000): Promise<Mail[]> {
    const end = Date.now() + timeoutMs;
    while (smtp.mails.filter(match).length < count) {
      if (Date.now() > end) throw new Error(`${smtp.mails.filter(match).length} of ${count} mails arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return smtp.mails.filter(match);
  }

  const owner = await s.call('POST', '/api/users/owner', { body: { email: 'ada@example.com', name: 'Ada', password: PASSWORD } });
  t.equal(owner.status, 200);

  t.test('without mail settings an invitation is made and says it was not mailed', async (t) => {
    t.same((await s.call('GET', '/api/settings/mail')).body, { mail: null }, 'none set');
    const r = await s.call('POST', '/api/invitations', { body: { email: 'nomail@example.com', role: 'admin' } });
    t.equal(r.status, 200);
    t.same(r.body.mail, { sent: false, reason: 'no mail settings' });
    t.match(r.body.url, /\/invitations\/[A-Za-z0-9_-]{43}$/, 'the link is in the answer');
  });

  t.test('mail settings: a password needs TLS, the host is vetted, the server is probed; nothing is recorded until it works', async (t) => {
    const plain = await s.call('PUT', '/api/settings/mail', { body: { ...mailSettings, tls: 'none' } });
    assertError(t, plain, 400, 'validation_failed', 'a password without TLS');
    t.equal(plain.body.error.details[0].path, 'password');
    for (const bad of [{ port: 0 }, { port: 65536 }, { from: 'not an address' }, { host: 'smtp example.com' }, { host: 'smtp.example.com\r\nRCPT TO:<x@y>' }]) {
      assertError(t, await s.call('PUT', '/api/settings/mail', { body: { ...mailSettings, ...bad } }), 400, 'validation_failed', JSON.stringify(bad));
    }
    const forbidden = await s.call('PUT', '/api/settings/mail', { body: { ...mailSettings, host: '127.0.0.2' } });
    assertError(t, forbidden, 400, 'forbidden_destination', 'a loopback address the installation does not allow');
    t.equal(forbidden.body.error.details[0].path, 'host');

    const closed = await s.call('PUT', '/api/settings/mail', { body: { ...mailSettings, host: '127.0.0.1', port: closedPort } });
    t.equal(closed.status, 502, JSON.stringify(closed.body));
    t.equal(closed.body.error.code, 'mail_server_failed');
    t.match(closed.body.error.message, /ECONNREFUSED/, 'it says why');
    const refused = await s.call('PUT', '/api/settings/mail', { body: { ...mailSettings, password: 'not-the-password' } });
    t.equal(refused.status, 502, 'a login the server refuses');
    t.match(refused.body.error.message, /535/);
    t.notOk(JSON.stringify(refused.body).includes('not-the-password'), 'the answer holds no password');
    t.same((await s.call('GET', '/api/settings/mail')).body, { mail: null }, 'nothing recorded');
    t.same(await mailEvents(), [], 'no event');

    const put = await s.call('PUT', '/api/settings/mail', { body: mailSettings });
    t.equal(put.status, 200, JSON.stringify(put.body));
    t.match(put.body.mail, { host: 'localhost', port: smtp.port, tls: 'implicit', username: 'slipway', passwordSet: true, from: 'slipway@example.com' });
    const got = await s.call('GET', '/api/settings/mail');
    t.same(got.body, put.body, 'GET shows what PUT answered');
    t.notOk(JSON.stringify(got.body).includes(SMTP_LOGIN.password), 'never the password');
    t.same((await mailEvents()).map((e) => e.type), ['MailSettingsChanged']);
    t.notOk(JSON.stringify((await s.call('GET', '/api/events?limit=1000')).body).includes(SMTP_LOGIN.password), 'the password is in no event as auditors see them');
    const raw = (await s.app.db.query<{ row: string }>(`select data::text as row from es_events where stream_id = 'settings-installation'`)).rows.map((r) => r.row).join('\n');
    t.notOk(raw.includes(SMTP_LOGIN.password), 'nor in the stored log: it is sealed');
  });

  t.test('a project-scoped write key and an admin get 403 on the mail settings', async (t) => {
    const p = await createProject(s, 'Shop');
    const scoped = (await createKey(s, 'write', [p.id])).secret;
    for (const [method, body] of [['GET'], ['PUT', mailSettings], ['DELETE']] as const) {
      assertError(t, await s.call(method, '/api/settings/mail', { key: scoped, ...(body ? { body } : {}) }), 403, 'forbidden', `${method} with a project key`);
    }
    const invited = await s.call('POST', '/api/invitations', { body: { email: 'grace@example.com', role: 'admin' } });
    const token = new URL(invited.body.url).pathname.split('/').pop()!;
    t.equal((await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Grace', password: PASSWORD } })).status, 200);
    const grace = await signIn('grace@example.com', PASSWORD);
    const as = (body?: unknown) => ({ key: null, headers: { cookie: grace.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': grace.body.session.csrfToken }, ...(body ? { body } : {}) });
    for (const [method, body] of [['GET'], ['PUT', mailSettings], ['DELETE']] as const) {
      assertError(t, await s.call(method, '/api/settings/mail', as(body)), 403, 'forbidden', `${method} as an admin`);
    }
    t.equal((await s.call('GET', '/api/settings/mail')).body.mail.host, 'localhost', 'the settings are unchanged');
  });

  t.test('an invitation is mailed to the invited address; its link, accepted, makes the person', async (t) => {
    const before = smtp.mails.length;
    const r = await s.call('POST', '/api/invitations', { body: { email: 'Linus@Example.com', role: 'member' } });
    t.equal(r.status, 200);
    t.same(r.body.mail, { sent: true });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    t.same(mail!.to, ['linus@example.com'], 'to the invited address');
    t.equal(mail!.from, 'slipway@example.com');
    t.equal(mail!.user, 'slipway', 'logged in, over TLS');
    const text = textOf(mail!);
    t.ok(text.includes(r.body.url), 'the link the answer holds');
    t.match(text, /The API key .* invited you to Slipway as a member/, 'who invited them, and the role');
    t.match(text, /expires on/);
    const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
    const accepted = await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Linus', password: PASSWORD } });
    t.equal(accepted.status, 200);
    t.match(accepted.body.user, { email: 'linus@example.com', role: 'member' }, 'the mailed link made the person');
  });

  t.test('a mail that fails leaves the invitation as it is, and says why', async (t) => {
    const other = { host: '127.0.0.1', port: leaving.port, tls: 'none', from: 'slipway@example.com' };
    t.equal((await s.call('PUT', '/api/settings/mail', { body: other })).status, 200);
    t.equal((await s.call('GET', '/api/settings/mail')).body.mail.passwordSet, false);
    await leaving.close();
    leavingOpen = false;
    const r = await s.call('POST', '/api/invitations', { body: { email: 'unlucky@example.com', role: 'admin' } });
    t.equal(r.status, 200, 'the invitation is made');
    t.equal(r.body.mail.sent, false);
    t.match(r.body.mail.reason, /could not reach the mail server: .*ECONNREFUSED/);
    t.ok((await s.call('GET', '/api/invitations')).body.invitations.some((i: { email: string }) => i.email === 'unlucky@example.com'), 'and pending');
    t.equal((await s.call('PUT', '/api/settings/mail', { body: mailSettings })).status, 200, 'back to the TLS server');
  });

  t.test('five wrong passwords: the owners are told once; the right password is answered at once', async (t) => {
    // A second owner, told too.
    const invited = await s.call('POST', '/api/invitations', { body: { email: 'bea@example.com', role: 'owner' } });
    const token = new URL(invited.body.url).pathname.split('/').pop()!;
    t.equal((await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Bea', password: PASSWORD } })).status, 200);

    for (let i = 1; i <= 4; i++) t.equal((await signIn('linus@example.com', `wrong guess ${i}!!`)).status, 401);
    t.equal(alertsAbout('linus@example.com').length, 0, 'four are not enough');
    t.equal((await signIn('linus@example.com', 'wrong guess 5!!')).status, 401);
    const [alert] = await mailsMatching((m) => alertsAbout('linus@example.com').includes(m), 1);
    t.same(alert!.to.sort(), ['ada@example.com', 'bea@example.com'], 'every owner, in one mail');
    t.match(textOf(alert!), /5 failed sign-ins for linus@example\.com from 127\.0\.0\.1 since \d{4}-\d\d-\d\dT/);

    t.equal((await signIn('linus@example.com', 'wrong guess 6!!')).status, 401, 'a sixth');
    const started = Date.now();
    const right = await signIn('linus@example.com', PASSWORD);
    const took = Date.now() - started;
    t.equal(right.status, 200, 'the right password signs in');
    t.ok(took < 1500, `at once, not after the growing delay (${took} ms)`);

    // The success ended the streak, not the hour: five more wrong ones are not told again.
    for (let i = 1; i <= 5; i++) t.equal((await signIn('linus@example.com', `wrong again ${i}!`)).status, 401);
    // Alerts go out one after another: once Grace's arrives, a second one about Linus would have arrived before it.
    for (let i = 1; i <= 5; i++) t.equal((await signIn('grace@example.com', `wrong guess ${i}!!`)).status, 401);
    await mailsMatching((m) => alertsAbout('grace@example.com').includes(m), 1);
    t.equal(alertsAbout('linus@example.com').length, 1, 'one alert about Linus within the hour, for eleven failures');
    t.notOk(s.logs().includes(SMTP_LOGIN.password), 'the SMTP password is in no log line');
  });

  t.test('wrong second factors count as failures: a right password does not end the streak, a passed code does', async (t) => {
    const invited = await s.call('POST', '/api/invitations', { body: { email: 'zoe@example.com', role: 'member' } });
    const token = new URL(invited.body.url).pathname.split('/').pop()!;
    t.equal((await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Zoe', password: PASSWORD } })).status, 200);
    const session = await signIn('zoe@example.com', PASSWORD);
    const as = (body?: unknown) => ({ key: null, headers: { cookie: session.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': session.body.session.csrfToken }, ...(body ? { body } : {}) });
    const secret = (await s.call('POST', '/api/users/me/totp', as())).body.secret as string;
    const app = new TOTP({ secret: Secret.fromBase32(secret) });
    t.equal((await s.call('POST', '/api/users/me/totp/confirm', as({ code: app.generate() }))).status, 200);

    const withCode = (password: string, code: string) => s.call('POST', '/api/sessions', { key: null, body: { email: 'zoe@example.com', password, code } });
    const wrongCode = () => (app.generate() === '000000' ? '111111' : '000000');
    for (let i = 1; i <= 2; i++) t.equal((await withCode(`wrong guess ${i}!!`, wrongCode())).status, 401, 'a wrong password');
    for (let i = 1; i <= 3; i++) t.equal((await withCode(PASSWORD, wrongCode())).status, 401, 'the right password, a wrong code');
    const [alert] = await mailsMatching((m) => alertsAbout('zoe@example.com').includes(m), 1);
    t.match(textOf(alert!), /5 failed sign-ins for zoe@example\.com/, 'the right password did not end the streak: five failures in all');
    const started = Date.now();
    t.equal((await withCode(PASSWORD, app.generate({ timestamp: Date.now() + 30_000 }))).status, 200, 'a passed code signs in');
    t.ok(Date.now() - started < 1500, 'at once');
  });

  t.test('without mail settings the alert is a warning in the log only', async (t) => {
    t.equal((await s.call('DELETE', '/api/settings/mail')).status, 200);
    t.same((await s.call('GET', '/api/settings/mail')).body, { mail: null });
    assertError(t, await s.call('DELETE', '/api/settings/mail'), 404, 'not_found', 'removed once');
    const mails = smtp.mails.length;
    for (let i = 1; i <= 5; i++) t.equal((await signIn('bea@example.com', `wrong guess ${i}!!`)).status, 401);
    const end = Date.now() + 20_000;
    while (!s.logs().includes('the owners could not be told by mail')) {
      if (Date.now() > end) throw new Error('no warning was logged');
      await new Promise((r) => setTimeout(r, 50));
    }
    const line = s.logs().split('\n').find((l) => l.includes('the owners could not be told by mail'))!;
    t.match(JSON.parse(line), { level: 'warn', failures: 5, addresses: ['127.0.0.1'], reason: 'no mail settings' });
    t.notOk(line.includes('bea@example.com'), 'the log names the account by id, not by e-mail');
    t.equal(smtp.mails.length, mails, 'no mail');
  });

  t.test('the read models rebuilt from the log equal the live ones, mail settings included', async (t) => {
    t.equal((await s.call('PUT', '/api/settings/mail', { body: mailSettings })).status, 200);
    t.same((await mailEvents()).map((e) => e.type), ['MailSettingsChanged', 'MailSettingsChanged', 'MailSettingsChanged', 'MailSettingsRemoved', 'MailSettingsChanged']);
    await rebuildEquals(t, s);
    t.equal((await s.call('GET', '/api/settings/mail')).body.mail.passwordSet, true);
  });

  t.test('the CLI shows, sets (the password from stdin, never an argument) and removes the mail settings', async (t) => {
    const env = { SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key };
    const args = ['--host', 'localhost', '--port', String(smtp.port), '--tls', 'implicit', '--username', SMTP_LOGIN.user, '--from', 'cli@example.com'];
    const set = await slipwayWithInput(env, ['settings', 'mail', 'set', ...args, '--password'], `${SMTP_LOGIN.password}\n`);
    t.equal(set.status, 0, set.stderr);
    t.match(set.stdout, `mail server set: localhost:${smtp.port} (tls implicit, as slipway with a password), from cli@example.com`);
    const shown = await slipwayWithInput(env, ['settings', 'mail', '--json']);
    t.match(JSON.parse(shown.stdout), { mail: { from: 'cli@example.com', passwordSet: true } });
    t.notOk(shown.stdout.includes(SMTP_LOGIN.password), 'never the password');
    const wrong = await slipwayWithInput(env, ['settings', 'mail', 'set', ...args, '--password'], 'not-the-password\n');
    t.equal(wrong.status, 1, 'a login the server refuses fails the command');
    t.match(wrong.stderr, /535/);
    const removed = await slipwayWithInput(env, ['settings', 'mail', 'remove']);
    t.equal(removed.status, 0, removed.stderr);
    t.match((await slipwayWithInput(env, ['settings', 'mail'])).stdout, /no mail server/);
  });
}
