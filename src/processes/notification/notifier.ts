import { randomUUID } from 'node:crypto';
import { attemptDue } from '../../../commands/notification/aggregate.js';
import { queueNotification, notificationIdOf, recordNotificationAttempt, abandonNotification, loadNotification } from '../../../commands/notification/handlers.js';
import { openNotificationChannel } from '../../../commands/notification-channel/handlers.js';
import { causedBy, type CommandContext } from '../../../commands/shared/command-context.js';
import { channelsFor, dueNotifications, nextNotificationDue, type NotificationRow } from '../../../projections/notification-channel-queries.js';
import { listAllDomains } from '../../../projections/service-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { sendNotification } from '../../integrations/notifications/senders.js';
import type { Logger } from '../../logger.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { causeOf, expiringCertificateCause, type NotificationCause } from './notification-causes.js';
import { payloadOf } from './notification-payloads.js';
import { retryAtOf } from './notification-retry.js';
import type { Reactor } from '../reactor.js';

export interface NotifierDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  outbound: DestinationPolicy;
  /** Where the API is reached from outside, for the links (`https://api.example.com`). */
  apiBase(): Promise<string>;
  /** Resolves once the read models include `position`. */
  settle(position: string | null): Promise<void>;
  retryFirstMs: number;
  now?: () => Date;
}

/** Waits longer than this are cut: the timer is set again when it fires, or sooner by an event. */
const LONGEST_TIMER_MS = 60_000;
/** After a pass that failed (the store did not answer), the next one waits at least this long. */
const SHORTEST_TIMER_MS = 250;

/**
 * Notifications, at least once. From the log (its own checkpoint): each event that concerns people queues one
 * notification per channel that wants it (`NotificationQueued`, its id derived from channel and event, so a
 * replay queues nothing again). Apart from the log: every pending notification whose time has come is sent,
 * each attempt recorded; the read model lists what may be pending (a restart resumes where it stopped), and the
 * notification's own stream decides whether an attempt is due, which attempt it is and when the next one is.
 */
export class Notifier implements Reactor {
  readonly name = 'notifier';
  private sending: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly deps: NotifierDeps,
    private readonly log: Logger,
  ) {}

  private now = () => this.deps.now?.() ?? new Date();

  async handle(batch: readonly RecordedEvent[]): Promise<void> {
    let queued = false;
    for (const recorded of batch) {
      const cause = causeOf(recorded);
      if (cause) queued = (await this.queue(cause, cause.key ?? recorded.id, recorded.recordedAt, causedBy(this.deps.cmd, recorded))) || queued;
    }
    if (queued) this.kick();
  }

  /** Time alone makes a certificate expiring: looked at on every reconcile, each certificate told of once. */
  async reconcile(): Promise<void> {
    const now = this.now();
    for (const domain of await listAllDomains(this.deps.db)) {
      const cause = expiringCertificateCause(domain, now);
      if (!cause) continue;
      const key = `certificate-expiring|${domain.id}|${new Date(domain.certificate_not_after!).toISOString()}`;
      await this.queue(cause, key, now.toISOString(), { ...this.deps.cmd, correlationId: randomUUID(), causationId: null });
    }
    this.kick();
  }

  /** One notification per channel that wants it, its id derived from the channel and `causeKey`. */
  private async queue(cause: NotificationCause, causeKey: string, occurredAt: string, ctx: CommandContext): Promise<boolean> {
    const payload = await payloadOf(this.deps.db, cause, occurredAt, await this.deps.apiBase());
    if (!payload) return false;
    const { projectId, draft } = payload;
    const channels = await channelsFor(this.deps.db, cause.event, projectId);
    for (const channel of channels) {
      const id = notificationIdOf(channel.id, causeKey);
      const { position } = await queueNotification(ctx, id, channel.id, { id, ...draft });
      await this.deps.settle(position);
    }
    return channels.length > 0;
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    return this.sending ?? Promise.resolve();
  }

  /** Sends what is due now, one pass at a time; a kick during a pass runs another after it. */
  kick() {
    if (this.stopped) return;
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = this.sendDue()
      .catch((error: unknown) => this.log.warn('notifications could not be sent', { error: String(error) }))
      .finally(() => {
        this.sending = null;
        if (this.again) {
          this.again = false;
          this.kick();
        } else void this.schedule();
      });
  }

  private async schedule() {
    if (this.stopped) return;
    const next = await nextNotificationDue(this.deps.db).catch(() => null);
    if (!next) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(SHORTEST_TIMER_MS, Math.min(LONGEST_TIMER_MS, next.getTime() - this.now().getTime()));
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }

  private async sendDue() {
    // Each at most once per pass: one whose attempt recorded nothing is not tried again at once.
    const tried = new Set<string>();
    for (;;) {
      const due = (await dueNotifications(this.deps.db, this.now())).filter((n) => !tried.has(n.id));
      if (due.length === 0 || this.stopped) return;
      for (const n of due) tried.add(n.id);
      // One at a time per channel, channels side by side: a slow receiver does not hold back the others.
      const byChannel = new Map<string, NotificationRow[]>();
      for (const n of due) byChannel.set(n.channel_id, [...(byChannel.get(n.channel_id) ?? []), n]);
      await Promise.all([...byChannel.values()].map(async (list) => {
        for (const n of list) await this.deliver(n);
      }));
    }
  }

  private async deliver(row: NotificationRow) {
    const ctx = { ...this.deps.cmd, correlationId: row.id, causationId: null };
    // The read model only says which notifications may be due; whether one is (and which attempt it is) comes
    // from its stream, so a read model lagging behind a recorded delivery never causes a second POST.
    const state = await loadNotification(ctx, row.id);
    if (!state.queued || !attemptDue(state, this.now())) return;
    const channel = await openNotificationChannel(ctx, row.channel_id);
    if (!channel) {
      await this.deps.settle((await abandonNotification(ctx, row.id, 'the channel was deleted')).position);
      return;
    }
    const result = await sendNotification(this.deps.outbound, channel, state.queued.payload, this.now());
    const attempt = state.attempts + 1;
    const outcome = result.ok
      ? { delivered: true as const, status: result.status }
      : {
          delivered: false as const,
          status: result.status,
          error: result.error,
          retryAt: retryAtOf(attempt, result.permanent, new Date(row.created_at), this.now(), this.deps.retryFirstMs)?.toISOString() ?? null,
        };
    if (!result.ok) this.log.warn('a notification was not delivered', { notification: row.id, channel: row.channel_id, attempt, error: result.error });
    await this.deps.settle((await recordNotificationAttempt(ctx, row.id, outcome)).position);
  }
}
