import t from 'tap';
import { notificationChannel, type SealedSecrets } from '../../commands/notification-channel/aggregate.js';
import { parseNotificationChannelEvent } from '../../commands/notification-channel/events.js';
import { channelConfigSchemas } from '../../src/integrations/notifications/channel-config.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(notificationChannel);

const mail = { host: 'smtp.example.com', port: 587, secure: false, requireTLS: true, user: 'ops', from: 'a@example.com', to: ['b@example.com'] };
const sealed = (name: string, fields: string[]): SealedSecrets => ({ sealed: `enc:${name}`, fields });
const none = sealed('none', []);

const givenEmailChannel = () =>
  spec.given().when('create', { type: 'email', name: 'mail', events: ['deployment.failed'], projectIds: null, config: mail, secrets: 'enc:old', secretFields: ['password'] }).given();

t.test('a change of where an email channel sends drops its stored password unless the change gives a new one', async (t) => {
  for (const [field, value] of [['host', 'evil.example.com'], ['port', 2525], ['secure', true], ['requireTLS', false], ['user', 'someone']] as const) {
    const given = givenEmailChannel();
    const visible = { ...mail, [field]: value };
    const when = given.when('update', { config: { visible, supplied: none, merged: sealed('merged', ['password']) } });
    t.match(when.events[0], { type: 'NotificationChannelUpdated', data: { config: visible, secrets: 'enc:none', secretFields: [] } }, `${field} changed: nothing stored is kept`);
    t.equal(when.state.channel?.secrets, 'enc:none');
  }
});

t.test('a new destination keeps what the same change supplied', async (t) => {
  const [event] = givenEmailChannel().when('update', { config: { visible: { ...mail, port: 2525 }, supplied: sealed('new', ['password']), merged: sealed('merged', ['password']) } }).events;
  t.match(event?.data, { secrets: 'enc:new', secretFields: ['password'] });
});

t.test('a change that keeps the destination keeps the stored secrets (merged with what it gives)', async (t) => {
  const [event] = givenEmailChannel().when('update', { config: { visible: { ...mail, to: ['c@example.com'] }, supplied: none, merged: sealed('merged', ['password']) } }).events;
  t.match(event?.data, { secrets: 'enc:merged', secretFields: ['password'] });
  givenEmailChannel().when('update', { name: 'renamed' }).then(t, [{ type: 'NotificationChannelUpdated', data: { name: 'renamed' } }], 'no config: no secret touched');
});

t.test('a URL channel moves whenever its (sealed) URL is given anew', async (t) => {
  const given = spec.given().when('create', {
    type: 'webhook',
    name: 'hook',
    events: ['deployment.failed'],
    projectIds: null,
    config: { url: 'https://hooks.example.com/…' },
    secrets: 'enc:old',
    secretFields: ['secret', 'url'],
  }).given();
  const [moved] = given.when('update', { config: { visible: { url: 'https://hooks.example.com/…' }, supplied: sealed('new', ['url']), merged: sealed('merged', ['secret', 'url']) } }).events;
  t.match(moved?.data, { secrets: 'enc:new', secretFields: ['url'] }, 'same masked host, new URL: the signing secret is not kept');
});

t.test('a password is only kept where it travels over TLS', async (t) => {
  const plain = { ...mail, requireTLS: false };
  spec.given().when('create', { type: 'email', name: 'm', events: [], projectIds: null, config: plain, secrets: 'enc:x', secretFields: ['password'] }).thenThrows(t, { code: 'validation_failed' });
  const [dropped] = givenEmailChannel().when('update', { config: { visible: plain, supplied: none, merged: sealed('m', ['password']) } }).events;
  t.match(dropped?.data, { secretFields: [] }, 'turning TLS off is a move: the password goes, nothing is refused');
  givenEmailChannel().when('update', { config: { visible: plain, supplied: sealed('p', ['password']), merged: sealed('m', ['password']) } }).thenThrows(t, { code: 'validation_failed' });

  const check = (config: Record<string, unknown>) => channelConfigSchemas.email.safeParse({ from: 'a@example.com', to: ['b@example.com'], ...config }).success;
  t.notOk(check({ host: 'smtp.example.com', user: 'u', password: 'p' }), 'no TLS: no password');
  t.ok(check({ host: 'smtp.example.com', user: 'u', password: 'p', requireTLS: true }));
  t.ok(check({ host: 'smtp.example.com', port: 465, user: 'u', password: 'p', secure: true }));
  t.ok(check({ host: 'smtp.example.com' }), 'no password, no TLS needed');
  for (const host of ['smtp.example.com\r\nRCPT TO:<x@y>', 'smtp example.com', 'a\u0000b', '', 'http://smtp.example.com']) t.notOk(check({ host }), `host ${JSON.stringify(host)} refused`);
  for (const host of ['127.0.0.1', '::1', 'mail-1.example.co.uk', 'localhost']) t.ok(check({ host }), `host ${host} accepted`);
});

t.test('old events load: a clear webhook URL moves out of the visible config, old email configs keep their password', async (t) => {
  const recorded = (type: string, data: Record<string, unknown>) => ({ type, data, schemaVersion: 1 });
  const created = parseNotificationChannelEvent(
    recorded('NotificationChannelCreated', { type: 'webhook', name: 'old', events: ['deployment.failed'], projectIds: null, config: { url: 'https://hooks.example.com/T0/secret-token' }, secrets: 'enc:s' }),
  );
  t.match(created?.data, { config: { url: 'https://hooks.example.com/…' }, legacyUrl: 'https://hooks.example.com/T0/secret-token', secretFields: ['secret', 'url'] });
  const old = spec.given(created!);
  t.equal(old.state.channel?.legacyUrl, 'https://hooks.example.com/T0/secret-token', 'kept for delivery');
  const updated = parseNotificationChannelEvent(recorded('NotificationChannelUpdated', { config: { url: 'https://other.example.com/x' }, secrets: 'enc:t' }));
  t.match(updated?.data, { config: { url: 'https://other.example.com/…' }, legacyUrl: 'https://other.example.com/x' });
  const renamed = parseNotificationChannelEvent(recorded('NotificationChannelUpdated', { name: 'n' }));
  t.same(renamed?.data, { name: 'n' });
  const sealedAgain = old.when('update', { config: { visible: { url: 'https://new.example.com/…' }, supplied: sealed('n', ['secret', 'url']), merged: sealed('n', ['secret', 'url']) } });
  t.notOk('legacyUrl' in sealedAgain.state.channel!, 'a new URL replaces the one in clear');

  const email = parseNotificationChannelEvent(
    recorded('NotificationChannelCreated', { type: 'email', name: 'm', events: [], projectIds: null, config: { host: 'h.example.com', port: 465, secure: true, user: 'u', from: 'a@b.c', to: ['d@e.f'] }, secrets: 'enc:p' }),
  );
  t.match(email?.data, { config: { requireTLS: false }, secretFields: ['password'] });
  const emailChannel = spec.given(email!);
  const [kept] = emailChannel.when('update', { config: { visible: { ...emailChannel.state.channel!.config, to: ['x@e.f'] }, supplied: none, merged: sealed('m', ['password']) } }).events;
  t.match(kept?.data, { secretFields: ['password'] }, 'an old channel is not moved by a change of recipients');
});
