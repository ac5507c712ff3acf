import type { NotificationPayload } from '../commands/notification/events.js';
import type { ChannelType, NotificationEventName } from '../commands/notification-channel/events.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

/** After this many failed attempts in a row, a channel is shown as `failing` (list and health). */
export const FAILING_AFTER = 3;

export interface NotificationChannelRow {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  secret_fields: string[];
  events: NotificationEventName[];
  project_ids: string[] | null;
  failures_since_success: number;
  last_error: string | null;
  last_failure_at: Date | string | null;
  last_success_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface NotificationRow {
  id: string;
  channel_id: string;
  event: NotificationEventName;
  payload: NotificationPayload;
  test: boolean;
  status: 'pending' | 'delivered' | 'abandoned';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  abandon_reason: string | null;
  next_attempt_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface NotificationAttemptRow {
  notification_id: string;
  attempt: number;
  status: number | null;
  error: string | null;
  delivered: boolean;
  at: Date | string;
}

export async function listNotificationChannels(db: SqlExecutor): Promise<NotificationChannelRow[]> {
  return (await db.query<NotificationChannelRow>('select * from rm_notification_channels order by created_at, id')).rows;
}

export async function findNotificationChannel(db: SqlExecutor, id: string): Promise<NotificationChannelRow | null> {
  return (await db.query<NotificationChannelRow>('select * from rm_notification_channels where id = $1', [id])).rows[0] ?? null;
}

/** The channels that want `event` of a service in `projectId` (or of the installation, when null). */
export async function channelsFor(db: SqlExecutor, event: NotificationEventName, projectId: string | null): Promise<NotificationChannelRow[]> {
  const { rows } = await db.query<NotificationChannelRow>(
    `select * from rm_notification_channels where events ? $1 and (project_ids is null or ($2::text is not null and project_ids ? $2::text)) order by id`,
    [event, projectId],
  );
  return rows;
}

/** Newest first, the last 100, each with its attempts. */
export async function listNotificationsOf(db: SqlExecutor, channelId: string): Promise<(NotificationRow & { attempt_list: NotificationAttemptRow[] })[]> {
  const { rows } = await db.query<NotificationRow & { attempt_list: NotificationAttemptRow[] | null }>(
    `select n.*, (select json_agg(a order by a.attempt) from rm_notification_attempts a where a.notification_id = n.id) as attempt_list
     from rm_notifications n where n.channel_id = $1 order by n.created_at desc, n.id desc limit 100`,
    [channelId],
  );
  return rows.map((r) => ({ ...r, attempt_list: r.attempt_list ?? [] }));
}

/** Deliveries whose next attempt is due by `now`, oldest first; test sends are the route's own, never retried. */
export async function dueNotifications(db: SqlExecutor, now: Date, limit = 50): Promise<NotificationRow[]> {
  const { rows } = await db.query<NotificationRow>(
    `select * from rm_notifications where status = 'pending' and not test and next_attempt_at <= $1 order by next_attempt_at, id limit $2`,
    [now.toISOString(), limit],
  );
  return rows;
}

/** When the earliest pending delivery is due, or null when none waits. */
export async function nextNotificationDue(db: SqlExecutor): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | string | null }>(`select min(next_attempt_at) as at from rm_notifications where status = 'pending' and not test`);
  return rows[0]?.at ? new Date(rows[0].at) : null;
}

/** Channels failing now, for health. */
export async function failingNotificationChannels(db: SqlExecutor): Promise<NotificationChannelRow[]> {
  return (await db.query<NotificationChannelRow>('select * from rm_notification_channels where failures_since_success >= $1 order by id', [FAILING_AFTER])).rows;
}
