import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { useEffect } from 'preact/hooks';
import { CHANNEL_TYPES, DEFAULT_NOTIFICATION_EVENTS, NOTIFICATION_EVENTS, type ChannelType } from '../../../commands/notification-channel/event-names.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { useLiveReload } from '../live-reload.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';
import { FieldError, invalidProps } from './field-error.js';
import { confirmDialog } from './ui/dialog.js';
import { Badge } from './ui/badge.js';

type Channel = GetAnswer<'/api/notification-channels'>['channels'][number];

/** What each type's `config` asks for; secrets are sent once and never shown again. */
const CONFIG_FIELDS: Record<ChannelType, { name: string; label: string; secret?: boolean; numeric?: boolean; choices?: string[] }[]> = {
  webhook: [{ name: 'url', label: 'URL', secret: true }],
  slack: [{ name: 'webhookUrl', label: 'Incoming webhook URL', secret: true }],
  discord: [{ name: 'webhookUrl', label: 'Webhook URL', secret: true }],
  email: [
    { name: 'host', label: 'SMTP host' },
    { name: 'port', label: 'Port', numeric: true },
    { name: 'tls', label: 'TLS (a password needs it)', choices: ['STARTTLS required', 'implicit TLS', 'none'] },
    { name: 'user', label: 'User' },
    { name: 'password', label: 'Password', secret: true },
    { name: 'from', label: 'From' },
    { name: 'to', label: 'To (comma-separated)' },
  ],
};

/** The API's paths of the form's fields; the TLS choice is sent as `secure` and `requireTLS`. */
const fieldOf = fieldsByPath({
  name: 'name',
  type: 'type',
  events: 'events',
  'config.secure': 'tls',
  'config.requireTLS': 'tls',
  ...Object.fromEntries(Object.values(CONFIG_FIELDS).flatMap((fields) => fields.map((f) => [`config.${f.name}`, f.name]))),
});

/** The configuration of the fields filled in: one left empty is not sent and takes the API's default. */
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
  const errors = useSignal(NO_ERRORS);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/notification-channels');
    if (failed) return void (errors.value = { general: messageOf(failed), fields: {} });
    channels.value = data.channels;
  };
  useEffect(() => {
    void load();
  }, []);
  // A channel made, changed or removed anywhere, and its deliveries, show here.
  useLiveReload((change) => /^notification(channel)?-/.test(change.streamId), load);

  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    // Events left as they were are not sent: the API's default is the same set.
    const chosen = events.value.length === DEFAULT_NOTIFICATION_EVENTS.length && DEFAULT_NOTIFICATION_EVENTS.every((e) => events.value.includes(e)) ? {} : { events: events.value as (typeof NOTIFICATION_EVENTS)[number][] };
    const answer = await api.POST('/api/notification-channels', {
      body: { name: String(data.get('name')), type: type.value, config: configOf(type.value, data), ...chosen },
    });
    if (answer.error) {
      errors.value = formErrors(answer.error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    secret.value = answer.data.secret ?? null;
    form.reset();
    await load();
  };
  const test = async (c: Channel) => {
    const { data, error: failed } = await api.POST('/api/notification-channels/{channelId}/test', { params: { path: { channelId: c.id } }, body: {} });
    errors.value = failed ? { general: messageOf(failed), fields: {} } : NO_ERRORS;
    note.value = data ? `Test to ${c.name}: ${data.delivery.status}` : null;
    await load();
  };
  const remove = async (c: Channel) => {
    const confirmed = await confirmDialog({
      title: `Delete the notification channel ${c.name}?`,
      body: `Nothing is sent to this ${c.type} channel any more; its delivery history goes with it.`,
      confirmLabel: 'Delete channel',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/notification-channels/{channelId}', { params: { path: { channelId: c.id } } });
    errors.value = failed ? { general: messageOf(failed), fields: {} } : NO_ERRORS;
    await load();
  };

  return (
    <section aria-labelledby="channels">
      <h2 id="channels">Notification channels</h2>
      <ErrorNote message={errors.value.general} />
      {note.value && <p role="status">{note.value}</p>}
      {secret.value && (
        <p class="secret" role="status">
          The signing secret, shown this once: <code>{secret.value}</code>
        </p>
      )}
      <ul class="item-list">
        {channels.value.map((c) => (
          <li key={c.id}>
            <div class="item-main">
              <p class="item-title">
                <strong>{c.name}</strong> <span class="muted">{c.type}</span> <Badge status={c.status} />
              </p>
              <p class="item-detail">{c.events.join(', ')}</p>
            </div>
            {canWrite.value && (
              <div class="row-actions">
                <button type="button" onClick={() => void test(c)}>
                  Send a test <span class="visually-hidden">to {c.name}</span>
                </button>
                <DangerButton label="Delete" what={c.name} onClick={() => void remove(c)} />
              </div>
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
          <input id="channel-name" name="name" required maxLength={100} {...invalidProps('channel-name', errors.value.fields.name)} />
          <FieldError id="channel-name" message={errors.value.fields.name} />
          <label for="channel-type">Type</label>
          <select id="channel-type" value={type.value} onChange={(e) => (type.value = e.currentTarget.value as ChannelType)} {...invalidProps('channel-type', errors.value.fields.type)}>
            {CHANNEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <FieldError id="channel-type" message={errors.value.fields.type} />
          {CONFIG_FIELDS[type.value].map((f) => {
            const id = `channel-${f.name}`;
            const invalid = invalidProps(id, errors.value.fields[f.name]);
            return (
              <Fragment key={f.name}>
                <label for={id}>{f.label}</label>
                {f.choices ? (
                  <select id={id} name={f.name} {...invalid}>
                    {f.choices.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                ) : f.secret ? (
                  <input id={id} name={f.name} type="password" autocomplete="off" {...invalid} />
                ) : f.numeric ? (
                  <input id={id} name={f.name} inputMode="numeric" pattern="[0-9]+" autocomplete="off" {...invalid} />
                ) : (
                  <input id={id} name={f.name} autocomplete="off" {...invalid} />
                )}
                <FieldError id={id} message={errors.value.fields[f.name]} />
              </Fragment>
            );
          })}
          <fieldset aria-describedby={errors.value.fields.events ? 'channel-events-error' : undefined}>
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
            <FieldError id="channel-events" message={errors.value.fields.events} />
          </fieldset>
          <button type="submit">Create channel</button>
        </form>
      )}
    </section>
  );
}
