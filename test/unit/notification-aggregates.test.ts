import { createHmac } from 'node:crypto';
import t from 'tap';
import { attemptDue, notification } from '../../commands/notification/aggregate.js';
import type { NotificationPayload } from '../../commands/notification/events.js';
import { notificationChannel } from '../../commands/notification-channel/aggregate.js';
import { slipwaySignature } from '../../src/integrations/notifications/signature.js';
import { splitConfig } from '../../src/integrations/notifications/channel-config.js';
import { retryAtOf } from '../../src/processes/notification/notification-retry.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const notifications = deciderSpec(notification);
const channels = deciderSpec(notificationChannel);

const payload: NotificationPayload = { id: 'n1', event: 'deployment.failed', occurredAt: '2026-01-01T00:00:00.000Z', project: null, service: null, links: {} };

t.test('a notification is queued once, attempted until delivered or abandoned', async (t) => {
  const queuedSpec = notifications.given().when('queue', { channelId: 'c', payload, test: false }).given();
  const queued = queuedSpec.state;
  t.equal(queued.status, 'pending');
  queuedSpec.when('queue', { channelId: 'c', payload, test: false }).then(t, [], 'queued again (a replay): nothing');
  const failed = queuedSpec.when('attempt', { delivered: false, status: 503, error: 'down', retryAt: '2026-01-01T00:01:00.000Z' });
  t.match(failed.events, [{ type: 'NotificationAttempted', data: { attempt: 1, status: 503, retryAt: '2026-01-01T00:01:00.000Z' } }]);
  const onceSpec = failed.given();
  const once = onceSpec.state;
  const delivered = onceSpec.when('attempt', { delivered: true, status: 200 });
  t.match(delivered.events, [{ type: 'NotificationDelivered', data: { attempt: 2, status: 200 } }]);
  const doneSpec = delivered.given();
  const done = doneSpec.state;
  doneSpec.when('attempt', { delivered: true, status: 200 }).then(t, [], 'a delivered notification records no more attempts');
  doneSpec.when('abandon', 'x').then(t, []);

  t.ok(attemptDue(queued, new Date('2026-01-01T00:00:00.000Z')), 'queued: due at once');
  t.notOk(attemptDue(once, new Date('2026-01-01T00:00:59.000Z')), 'failed: not due before its retry time');
  t.ok(attemptDue(once, new Date('2026-01-01T00:01:00.000Z')), 'due at its retry time');
  t.notOk(attemptDue(done, new Date('2027-01-01T00:00:00.000Z')), 'delivered: never due again');

  const refused = queuedSpec.when('attempt', { delivered: false, status: 404, error: 'no', retryAt: null }).events;
  t.match(refused, [{ type: 'NotificationAttempted' }, { type: 'NotificationAbandoned', data: { reason: 'the receiver refused it (404)' } }]);
  const timedOut = onceSpec.when('attempt', { delivered: false, status: null, error: 'ECONNREFUSED', retryAt: null }).events;
  t.match(timedOut[1], { type: 'NotificationAbandoned', data: { reason: 'it kept failing for 24 hours' } });
});

t.test('channels: created once, changed only by what changes, deleted once', async (t) => {
  const data = { type: 'webhook' as const, name: 'ops', events: ['deployment.failed' as const], projectIds: null, config: { url: 'https://x.example/…' }, secrets: 'enc:v1:…', secretFields: ['secret', 'url'] };
  const active = channels.given().when('create', data).given();
  active.when('create', data).thenThrows(t, { code: 'conflict' });
  active.when('update', {}).then(t, []);
  const renamed = active.when('update', { name: 'oncall' }).given();
  t.equal(renamed.state.channel?.name, 'oncall');
  t.equal(renamed.state.channel?.config.url, 'https://x.example/…', 'the rest is kept');
  const deleted = renamed.when('delete').given();
  deleted.when('delete').thenThrows(t, { code: 'not_found' });
  deleted.when('update', { name: 'x' }).thenThrows(t, { code: 'not_found' });
});

t.test('retries back off from the first wait, at most an hour apart, and stop after 24 hours or on a refusal', async (t) => {
  const queuedAt = new Date('2026-01-01T00:00:00Z');
  const now = new Date('2026-01-01T00:10:00Z');
  t.equal(retryAtOf(1, false, queuedAt, now, 30_000)?.toISOString(), '2026-01-01T00:10:30.000Z');
  t.equal(retryAtOf(3, false, queuedAt, now, 30_000)?.toISOString(), '2026-01-01T00:12:00.000Z');
  t.equal(retryAtOf(20, false, queuedAt, now, 30_000)?.toISOString(), '2026-01-01T01:10:00.000Z', 'never more than an hour');
  t.equal(retryAtOf(1, true, queuedAt, now, 30_000), null);
  t.equal(retryAtOf(30, false, queuedAt, new Date('2026-01-01T23:30:00Z'), 30_000), null, 'not past 24 hours');
});

t.test('the signature is the HMAC-SHA256 of "t.body"; secrets are split from what is shown', async (t) => {
  const at = new Date('2026-01-01T00:00:00Z');
  const expected = createHmac('sha256', 'k').update('1767225600.{"a":1}').digest('hex');
  t.equal(slipwaySignature('k', '{"a":1}', at), `t=1767225600,v1=${expected}`);
  t.same(splitConfig('email', { host: 'h', password: 'p', to: ['a@b.c'] }), { visible: { host: 'h', to: ['a@b.c'] }, secrets: { password: 'p' } });
  t.same(splitConfig('slack', { webhookUrl: 'https://hooks.slack.com/x' }), { visible: {}, secrets: { webhookUrl: 'https://hooks.slack.com/x' } });
  t.same(
    splitConfig('webhook', { url: 'https://user:pw@hooks.example.com:8443/t/abc?token=1', secret: 's' }),
    { visible: { url: 'https://hooks.example.com:8443/…' }, secrets: { url: 'https://user:pw@hooks.example.com:8443/t/abc?token=1', secret: 's' } },
    'a webhook URL is sealed and shown as scheme and host only',
  );
});
