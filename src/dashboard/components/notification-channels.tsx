import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { CHANNEL_TYPES, DEFAULT_NOTIFICATION_EVENTS, NOTIFICATION_EVENTS, type ChannelType } from '../../../commands/notification-channel/event-names.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';

type Channel = GetAnswer<'/api/notification-channels'>['channels'][number];

/** What each type's `config` asks for; secrets are sent once and never shown again. */
const CONFIG_FIELDS: Record<ChannelType, { name: string; label: string; secret?: boolean; choices?: string[] }[]> = {
  webhook: [{ name: 'url', label: 'URL', secret: true }],
  slack: [{ name: 'webhookUrl', label: 'Incoming webhook URL', secret: true }],
  discord: [{ name: 'webhookUrl', label: 'Webhook URL', secret: true }],
  email: [
    { name: 'host', label: 'SMTP host' },
    { name: 'port', label: 'Port' },
    { name: 'tls', label: 'TLS (a password needs it)', choices: ['STARTTLS required', 'implicit TLS', 'none'] },
    { name: 'user', label: 'User' },
    { name: 'password', label: 'Password', secret: true },
    { name: 'from', label: 'From' },
    { name: 'to', label: 'To (comma-separated)' },
  ],
};

function configOf(type: ChannelType, form: FormData): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[type]) {
    const value = String(form.get(field.name) ?? '').trim();
    if (!value) continue;
    if (field.name === 'tls') {
      config.secure = value === 'implicit TLS';
      config.requireTLS = value === 'STARTTLS required';
      continue;
    }
    config[field.name] = field.name === 'port' ? Number(value) : field.name === 'to' ? value.split(',').map((s) => s.trim()) : value;
  }
  return config;
}

/** Where Slipway tells people what happened: create, test, see deliveries, delete. */
export function NotificationChannels() {
  const channels = useSignal<Channel[]>([]);
  const type = useSignal<ChannelType>('webhook');
  const events = useSignal<string[]>([...DEFAULT_NOTIFICATION_EVENTS]);
  const secret = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/notification-channels');
    if (failed) return void (error.value = messageOf(failed));
    channels.value = data.channels;
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const answer = await api.POST('/api/notification-channels', {
      body: { name: String(data.get('name')), type: type.value, config: configOf(type.value, data), events: events.value as (typeof NOTIFICATION_EVENTS)[number][] },
    });
    if (answer.error) return void (error.value = messageOf(answer.error));
    error.value = null;
    secret.value = answer.data.secret ?? null;
    form.reset();
    await load();
  };
  const test = async (c: Channel) => {
    const { data, error: failed } = await api.POST('/api/notification-channels/{channelId}/test', { params: { path: { channelId: c.id } }, body: {} });
    error.value = failed ? messageOf(failed) : null;
    note.value = data ? `Test to ${c.name}: ${data.delivery.status}` : null;
    await load();
  };
  const remove = async (c: Channel) => {
    if (!window.confirm(`Delete the channel ${c.name}?`)) return;
    const { error: failed } = await api.DELETE('/api/notification-channels/{channelId}', { params: { path: { channelId: c.id } } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };

  return (
    <section aria-labelledby="channels">
      <h2 id="channels">Notification channels</h2>
      <ErrorNote message={error.value} />
      {note.value && <p role="status">{note.value}</p>}
      {secret.value && (
        <p class="secret" role="status">
          The signing secret, shown this once: <code>{secret.value}</code>
        </p>
      )}
      <ul>
        {channels.value.map((c) => (
          <li key={c.id}>
            <strong>{c.name}</strong> ({c.type}) — {c.events.join(', ')} — <span class={c.status === 'failing' ? 'error' : ''}>{c.status}</span>{' '}
            {canWrite.value && (
              <>
                <button type="button" onClick={() => void test(c)}>
                  Send a test <span class="visually-hidden">to {c.name}</span>
                </button>
                <DangerButton label="Delete" what={c.name} onClick={() => void remove(c)} />
              </>
            )}
          </li>
        ))}
      </ul>
      {canWrite.value && (
        <form
          class="settings"
          aria-label="New channel"
          onSubmit={(e) => {
            e.preventDefault();
            void create(e.currentTarget);
          }}
        >
          <label for="channel-name">Name</label>
          <input id="channel-name" name="name" required maxLength={100} />
          <label for="channel-type">Type</label>
          <select id="channel-type" value={type.value} onChange={(e) => (type.value = e.currentTarget.value as ChannelType)}>
            {CHANNEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          {CONFIG_FIELDS[type.value].map((f) => (
            <span key={f.name} class="contents">
              <label for={`channel-${f.name}`}>{f.label}</label>
              {f.choices ? (
                <select id={`channel-${f.name}`} name={f.name}>
                  {f.choices.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              ) : f.secret ? (
                <input id={`channel-${f.name}`} name={f.name} type="password" autocomplete="off" />
              ) : (
                <input id={`channel-${f.name}`} name={f.name} autocomplete="off" />
              )}
            </span>
          ))}
          <fieldset>
            <legend>Events</legend>
            {NOTIFICATION_EVENTS.map((name) => (
              <label key={name} class="check">
                <input
                  type="checkbox"
                  checked={events.value.includes(name)}
                  onChange={(e) => (events.value = e.currentTarget.checked ? [...events.value, name] : events.value.filter((x) => x !== name))}
                />{' '}
                {name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create channel</button>
        </form>
      )}
    </section>
  );
}
