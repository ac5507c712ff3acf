import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { createKey, createProject } from '../helpers/http-resources.js';
import { startReceiver, startSmtpServer, verifySlipwaySignature } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
import { newEvent } from '../helpers/new-event.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { trustedTestCertificate } from '../helpers/trusted-test-ca.js';

// Slipway's SMTP client verifies the server's certificate: this file runs again in a Node that trusts a test root.
const certificate = await trustedTestCertificate(fileURLToPath(import.meta.url));
if (certificate) {
  const { default: t } = await import('tap');

  const test = async (t: Test, s: TestServer, id: string, key?: string) => {
    const r = await s.call('POST', `/api/notification-channels/${id}/test`, { body: {}, ...(key ? { key } : {}) });
    t.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.delivery as { status: string; attempts: { error: string | null }[] };
  };
  // One Slipway for every case (the machine may be busy): the receivers are started first, to allow exactly them.
  const trusted = await startSmtpServer({ user: 'slipway', password: 'the-real-smtp-password' }, { tls: certificate });
  const other = await startSmtpServer({ user: 'nobody', password: 'nothing' }, { tls: certificate, authOptional: true });
  const receiver = await startReceiver();
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: [trusted.url, other.url, receiver.url].map(destinationOf).join(',') });
  t.teardown(() => Promise.all([s.close(), trusted.close(), other.close(), receiver.close()]));

  const eventText = async (s: TestServer) =>
    (await s.app.db.query<{ row: string }>(`select data::text || metadata::text as row from es_events where stream_id like 'notificationchannel-%'`)).rows.map((r) => r.row).join('\n');

  t.test('moving an email channel drops its SMTP password: a project key cannot take it to a server of its own', async (t) => {
    const p = await createProject(s, 'Shop');
    const scoped = (await createKey(s, 'write', [p.id])).secret;

    const base = { host: '127.0.0.1', port: trusted.port, secure: true, user: 'slipway', from: 'slipway@example.com', to: ['ops@example.com'] };
    const created = await s.call('POST', '/api/notification-channels', {
      body: { name: 'mail', type: 'email', config: { ...base, password: 'the-real-smtp-password' }, projectIds: [p.id] },
    });
    t.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.channel.id as string;
    t.same(created.body.channel.storedSecrets, ['password']);
    t.match(await test(t, s, id), { status: 'delivered' }, 'over implicit TLS, logged in');
    t.equal(trusted.mails[0]?.user, 'slipway');

    const moved = await s.call('PATCH', `/api/notification-channels/${id}`, { key: scoped, body: { config: { port: other.port } } });
    t.equal(moved.status, 200, JSON.stringify(moved.body));
    t.same(moved.body.channel.storedSecrets, [], 'the answer says the password is gone');
    t.same((await s.call('GET', `/api/notification-channels/${id}`, { key: scoped })).body.channel.storedSecrets, [], 'and so does GET');
    const sent = await test(t, s, id, scoped);
    t.same(other.auths, [], 'the other server was sent no AUTH at all (above all not the password)');
    t.match(sent, { status: 'delivered' });
    await other.waitFor(1);
    t.equal(other.mails[0]?.user, null);

    const back = await s.call('PATCH', `/api/notification-channels/${id}`, { body: { config: { host: 'localhost', port: trusted.port } } });
    t.same(back.body.channel.storedSecrets, [], 'moving back does not bring it back');
    const resupplied = await s.call('PATCH', `/api/notification-channels/${id}`, { body: { config: { host: '127.0.0.1', password: 'the-real-smtp-password' } } });
    t.same(resupplied.body.channel.storedSecrets, ['password'], 'a move with a new password keeps the new one');
    const recipients = await s.call('PATCH', `/api/notification-channels/${id}`, { key: scoped, body: { config: { to: ['oncall@example.com'] } } });
    t.same(recipients.body.channel.storedSecrets, ['password'], 'a change that keeps the destination keeps the password');
    t.match(await test(t, s, id), { status: 'delivered' });
    t.equal(trusted.mails.at(-1)?.user, 'slipway');
    await s.call('PATCH', `/api/notification-channels/${id}`, { body: { config: { password: 'a-wrong-password' } } });
    t.match(await test(t, s, id), { status: 'abandoned', attempts: [{ status: 535 }] }, 'a new password alone is a change like any other; an SMTP 5xx is not retried');
    t.notOk((await eventText(s)).includes('the-real-smtp-password'), 'the log holds the password sealed only');
  });

  t.test('a password needs TLS; a host is a host name or an address', async (t) => {
    const create = (config: Record<string, unknown>) =>
      s.call('POST', '/api/notification-channels', { body: { name: 'm', type: 'email', config: { port: 587, from: 'a@example.com', to: ['b@example.com'], ...config } } });
    const plain = await create({ host: 'smtp.example.com', user: 'u', password: 'p' });
    t.equal(plain.status, 400);
    t.equal(plain.body.error.code, 'validation_failed');
    t.equal(plain.body.error.details[0].path, 'config.password');
    const opportunistic = await create({ host: 'smtp.example.com', user: 'u', password: 'p', secure: false, requireTLS: false });
    t.equal(opportunistic.status, 400, 'STARTTLS when offered is not enough');
    for (const host of ['smtp.example.com\r\nMAIL FROM:<x@y>', 'smtp example.com', 'smtp.example.com\u0000', '']) {
      const r = await create({ host });
      t.equal(r.status, 400, JSON.stringify(host));
      t.equal(r.body.error.details[0].path, 'config.host');
    }
  });

  t.test('a webhook URL is sealed, shown masked, never in an event in clear; a new URL gets a new signing secret', async (t) => {
    const masked = `${receiver.url}/…`;

    const before = (await s.call('GET', '/api/notification-channels')).body.channels.length as number;
    const created = await s.call('POST', '/api/notification-channels', { body: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hooks/tok-0123456789?key=abc` } } });
    t.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.channel.id as string;
    t.same(created.body.channel.config, { url: masked });
    t.same(created.body.channel.storedSecrets, ['secret', 'url']);
    t.same((await s.call('GET', `/api/notification-channels/${id}`)).body.channel.config, { url: masked });
    t.same((await s.call('GET', '/api/notification-channels')).body.channels[before].config, { url: masked });
    t.match(await test(t, s, id), { status: 'delivered' });
    const [hit] = await receiver.waitFor(1, '/hooks/tok-0123456789?key=abc');
    t.ok(verifySlipwaySignature(created.body.secret, hit!.headers['x-slipway-signature'] as string, hit!.body));

    const renamed = await s.call('PATCH', `/api/notification-channels/${id}`, { body: { name: 'renamed', config: { url: `${receiver.url}/hooks/tok-0123456789?key=abc` } } });
    t.equal(renamed.body.secret, undefined, 'the same URL again moves nothing: the signing secret stays');
    const moved = await s.call('PATCH', `/api/notification-channels/${id}`, { body: { config: { url: `${receiver.url}/elsewhere/tok-9876543210` } } });
    t.equal(moved.status, 200, JSON.stringify(moved.body));
    t.match(moved.body.secret, /^[0-9a-f]{64}$/, 'a new URL without a secret: a new signing secret, shown once');
    t.not(moved.body.secret, created.body.secret);
    t.match(await test(t, s, id), { status: 'delivered' });
    const [second] = await receiver.waitFor(1, '/elsewhere/tok-9876543210');
    t.ok(verifySlipwaySignature(moved.body.secret, second!.headers['x-slipway-signature'] as string, second!.body), 'signed with the new secret');
    t.notOk(verifySlipwaySignature(created.body.secret, second!.headers['x-slipway-signature'] as string, second!.body), 'not with the old one');

    const log = await eventText(s);
    t.notOk(log.includes('tok-0123456789') || log.includes('tok-9876543210'), 'no event holds a URL in clear');
    t.ok(log.includes(masked), 'the masked form is what events show');
  });

  t.test('an old event with a webhook URL in clear still loads, shown masked, and still delivers', async (t) => {
    const id = randomUUID();
    const secrets = await s.app.keyring.encrypt(`notificationchannel-${id}`, JSON.stringify({ secret: 'a-legacy-signing-secret' }));
    const v1 = newEvent('NotificationChannelCreated', { type: 'webhook', name: 'old', events: ['deployment.failed'], projectIds: null, config: { url: `${receiver.url}/legacy/tok-legacy` }, secrets });
    const { position } = await s.app.store.append(`notificationchannel-${id}`, [v1], 'no_stream');
    await s.app.settle(position);

    const got = await s.call('GET', `/api/notification-channels/${id}`);
    t.equal(got.status, 200, JSON.stringify(got.body));
    t.same(got.body.channel.config, { url: `${receiver.url}/…` }, 'shown masked');
    t.same(got.body.channel.storedSecrets, ['secret', 'url']);
    t.match(await test(t, s, id), { status: 'delivered' });
    const [hit] = await receiver.waitFor(1, '/legacy/tok-legacy');
    t.ok(verifySlipwaySignature('a-legacy-signing-secret', hit!.headers['x-slipway-signature'] as string, hit!.body));

    const renamed = await s.call('PATCH', `/api/notification-channels/${id}`, { body: { name: 'still old', config: { to: undefined } } });
    t.equal(renamed.status, 200, JSON.stringify(renamed.body));
    t.equal(renamed.body.secret, undefined, 'a change that names no URL keeps it (and its secret)');
    t.match(await test(t, s, id), { status: 'delivered' });
    await receiver.waitFor(2, '/legacy/tok-legacy');
    const log = (await s.app.db.query<{ row: string }>(`select data::text as row from es_events where stream_id = $1 and schema_version > 1`, [`notificationchannel-${id}`])).rows;
    t.notOk(log.some((r) => r.row.includes('tok-legacy')), 'events written since hold it sealed only');
  });
}
