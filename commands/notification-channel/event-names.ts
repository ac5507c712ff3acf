// No imports: the dashboard's bundle reads these names too.
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const NOTIFICATION_EVENTS = [
  'deployment.failed',
  'deployment.succeeded',
  'deployment.rolled_back',
  'service.unhealthy',
  'service.recovered',
  'backup.failed',
  'backup.succeeded',
  'certificate.failed',
  'certificate.expiring',
  'webhook.rejected',
  'node.down',
  'job.failed',
] as const;
export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

/** What a new channel gets when it names no events: every failure, none of the successes. */
export const DEFAULT_NOTIFICATION_EVENTS: NotificationEventName[] = [
  'deployment.failed',
  'deployment.rolled_back',
  'service.unhealthy',
  'backup.failed',
  'certificate.failed',
  'certificate.expiring',
  'webhook.rejected',
  'node.down',
  'job.failed',
];
