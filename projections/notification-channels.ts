import { parseNotificationEvent } from '../commands/notification/events.js';
import { parseNotificationChannelEvent } from '../commands/notification-channel/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// The sealed secrets stay in the log: the read side knows only which channel has which visible settings.
const channelEvents = eachEventOf('notificationchannel', parseNotificationChannelEvent, (event, id, at, out) => {
  switch (event.type) {
    case 'NotificationChannelCreated': {
      const d = event.data;
      out.upsert({
        table: 'rm_notification_channels',
        row: { id, name: d.name, type: d.type, config: d.config, secret_fields: d.secretFields, events: d.events, project_ids: d.projectIds, created_at: at, updated_at: at },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'NotificationChannelUpdated': {
      const d = event.data;
      const sets = [sql`updated_at = ${at}`];
      if (d.name !== undefined) sets.push(sql`name = ${d.name}`);
      if (d.config !== undefined) sets.push(sql`config = ${d.config}`);
      if (d.secretFields !== undefined) sets.push(sql`secret_fields = ${d.secretFields}`);
      if (d.events !== undefined) sets.push(sql`events = ${d.events}`);
      if (d.projectIds !== undefined) sets.push(sql`project_ids = ${d.projectIds}`);
      out.sql(`update rm_notification_channels set ${sets.join(', ')} where id = ${sql`${id}`}`);
      return;
    }
    case 'NotificationChannelDeleted':
      out.deleteOwnedBy('rm_notification_channels', 'id', id);
      return;
  }
});

const deliveryEvents = eachEventOf('notification', parseNotificationEvent, (event, id, at, out) => {
  const set = (assignments: string) => out.updateById('rm_notifications', id, assignments);
  switch (event.type) {
    case 'NotificationQueued': {
      const d = event.data;
      out.upsert({
        table: 'rm_notifications',
        row: { id, channel_id: d.channelId, event: d.payload.event, payload: d.payload, test: d.test, status: 'pending', attempts: 0, next_attempt_at: at, created_at: at, updated_at: at },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'NotificationAttempted': {
      const d = event.data;
      out.upsert({
        table: 'rm_notification_attempts',
        row: { notification_id: id, attempt: d.attempt, status: d.status, error: d.error, delivered: false, at },
        key: ['notification_id', 'attempt'],
        update: [],
      });
      set(sql`attempts = ${d.attempt}, last_status = ${d.status}, last_error = ${d.error}, next_attempt_at = ${d.retryAt}, updated_at = ${at}`);
      // A channel whose every attempt since its last success failed is `failing`; a replay sets the same count.
      out.sql(
        sql`update rm_notification_channels set failures_since_success = (select count(*) from rm_notification_attempts a join rm_notifications n on n.id = a.notification_id
          where n.channel_id = ${d.channelId} and not a.delivered and a.at > coalesce(rm_notification_channels.last_success_at, '-infinity')), last_error = ${d.error}, last_failure_at = ${at}
          where id = ${d.channelId}`,
      );
      return;
    }
    case 'NotificationDelivered': {
      const d = event.data;
      out.upsert({
        table: 'rm_notification_attempts',
        row: { notification_id: id, attempt: d.attempt, status: d.status, error: null, delivered: true, at },
        key: ['notification_id', 'attempt'],
        update: [],
      });
      set(sql`status = 'delivered', attempts = ${d.attempt}, last_status = ${d.status}, next_attempt_at = null, updated_at = ${at}`);
      out.sql(sql`update rm_notification_channels set failures_since_success = 0, last_success_at = ${at} where id = ${d.channelId}`);
      return;
    }
    case 'NotificationAbandoned':
      set(sql`status = 'abandoned', abandon_reason = ${event.data.reason}, next_attempt_at = null, updated_at = ${at}`);
      return;
  }
});

export const notificationChannelsProjector: Projector = {
  name: 'notification-channels',
  // 2: webhook URLs shown masked (old events upcast), and the names of the stored secret fields.
  version: 2,
  tables: ['rm_notification_channels', 'rm_notifications', 'rm_notification_attempts'],
  ddl: `
create table if not exists rm_notification_channels (
  id text primary key,
  name text not null,
  type text not null,
  config jsonb not null,
  secret_fields jsonb not null,
  events jsonb not null,
  project_ids jsonb,
  failures_since_success integer not null default 0,
  last_error text,
  last_failure_at timestamptz,
  last_success_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table if not exists rm_notifications (
  id text primary key,
  channel_id text not null,
  event text not null,
  payload jsonb not null,
  test boolean not null,
  status text not null,
  attempts integer not null,
  last_status integer,
  last_error text,
  abandon_reason text,
  next_attempt_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table if not exists rm_notification_attempts (
  notification_id text not null,
  attempt integer not null,
  status integer,
  error text,
  delivered boolean not null,
  at timestamptz not null,
  primary key (notification_id, attempt)
);`,
  indexes: `
create index if not exists rm_notifications_channel on rm_notifications (channel_id, created_at desc);
create index if not exists rm_notifications_pending on rm_notifications (next_attempt_at) where status = 'pending';`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      channelEvents([event], out);
      deliveryEvents([event], out);
    }
  },
};
