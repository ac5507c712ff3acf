import { FAILING_AFTER, type NotificationAttemptRow, type NotificationChannelRow, type NotificationRow } from '../../projections/notification-channel-queries.js';

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

export function presentNotificationChannel(row: NotificationChannelRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: row.config,
    storedSecrets: row.secret_fields,
    events: row.events,
    projectIds: row.project_ids,
    status: row.failures_since_success >= FAILING_AFTER ? ('failing' as const) : ('ok' as const),
    failuresSinceSuccess: row.failures_since_success,
    lastError: row.last_error,
    lastFailureAt: isoOrNull(row.last_failure_at),
    lastSuccessAt: isoOrNull(row.last_success_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentNotificationDelivery(row: NotificationRow & { attempt_list: NotificationAttemptRow[] }) {
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    test: row.test,
    attempts: row.attempt_list.map((a) => ({ attempt: a.attempt, status: a.status, error: a.error, delivered: a.delivered, at: iso(a.at) })),
    nextAttemptAt: isoOrNull(row.next_attempt_at),
    abandonReason: row.abandon_reason,
    payload: row.payload,
    createdAt: iso(row.created_at),
  };
}
