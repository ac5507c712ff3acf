import { answer, apiClient } from './client.js';
import { table, when } from './output.js';
import { print, type Output } from './resources.js';
import { settingsPatch } from './settings.js';

type ChannelType = 'webhook' | 'slack' | 'discord' | 'email';

export async function listNotificationChannels(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/notification-channels'));
  print(o.json, data, () =>
    data.channels.length === 0
      ? 'no notification channels yet: slipway notification-channels create <name> --type webhook url=https://…'
      : table(
          ['ID', 'NAME', 'TYPE', 'STATUS', 'EVENTS', 'PROJECTS'],
          data.channels.map((c) => [c.id, c.name, c.type, c.status === 'failing' ? `failing (${c.lastError ?? ''})` : c.status, c.events.join(','), c.projectIds?.join(',') ?? 'all']),
        ),
  );
}

/** `KEY=VALUE …` as the channel's config (values as JSON when they parse: `port=587`, `to=["a@b.c"]`). */
export async function createNotificationChannel(name: string, config: string[], o: Output & { type: ChannelType; events?: string[]; project?: string[] }) {
  const { api } = apiClient();
  const body = {
    name,
    type: o.type,
    config: settingsPatch(config),
    ...(o.events ? { events: o.events as never } : {}),
    ...(o.project ? { projectIds: o.project } : {}),
  };
  const data = await answer(api.POST('/api/notification-channels', { body }));
  print(o.json, data, () =>
    [`created notification channel ${data.channel.name} (${data.channel.id}) for ${data.channel.events.join(', ')}`, ...(data.secret ? [`signing secret (shown once): ${data.secret}`] : [])].join('\n'),
  );
}

export async function deleteNotificationChannel(id: string, o: Output) {
  const { api } = apiClient();
  const data = await answer(api.DELETE('/api/notification-channels/{channelId}', { params: { path: { channelId: id } } }));
  print(o.json, data, () => `deleted notification channel ${id}`);
}

export async function testNotificationChannel(id: string, o: Output & { event?: string }) {
  const { api } = apiClient();
  const data = await answer(api.POST('/api/notification-channels/{channelId}/test', { params: { path: { channelId: id } }, body: o.event ? { event: o.event as never } : {} }));
  const attempt = data.delivery.attempts[0];
  print(o.json, data, () => (data.delivery.status === 'delivered' ? `delivered (${attempt?.status ?? 'ok'})` : `not delivered: ${attempt?.error ?? data.delivery.abandonReason ?? ''}`));
  if (data.delivery.status !== 'delivered') process.exitCode = 1;
}

export async function listNotifications(id: string, o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/notification-channels/{channelId}/deliveries', { params: { path: { channelId: id } } }));
  print(o.json, data, () =>
    data.deliveries.length === 0
      ? 'no notifications yet'
      : table(
          ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ERROR', 'CREATED'],
          data.deliveries.map((d) => [d.id, d.event, d.status, String(d.attempts.length), d.attempts.at(-1)?.error ?? '', when(d.createdAt)]),
        ),
  );
}
