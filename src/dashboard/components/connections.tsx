import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../shared/api-types.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ConnectionForm, type ConnectionField } from './connection-form.js';
import { DangerButton } from './danger-button.js';
import { ErrorNote } from './error-note.js';
import { confirmDialog } from './ui/dialog.js';
import { RelativeTime } from './ui/relative-time.js';

type Settings = GetAnswer<'/api/settings'>['settings'];
type BodyOf<P extends '/api/settings/dns-providers/{providerId}' | '/api/settings/remote-storage'> = paths[P]['put']['requestBody']['content']['application/json'];
type DnsProvider = Settings['dnsProviders'][number];
type AiProvider = Settings['aiProviders'][number];

const DNS_FIELDS: Record<DnsProvider['id'], ConnectionField[]> = {
  cloudflare: [{ name: 'apiToken', label: 'API token', secret: true }],
  digitalocean: [{ name: 'apiToken', label: 'API token', secret: true }],
  powerdns: [
    { name: 'baseUrl', label: 'API URL', placeholder: 'http://pdns.example.com:8081' },
    { name: 'apiKey', label: 'API key', secret: true },
    { name: 'serverId', label: 'Server id', placeholder: 'localhost' },
  ],
};
const AI_FIELDS: ConnectionField[] = [
  { name: 'baseUrl', label: 'API URL', optional: true, placeholder: 'the provider’s own' },
  { name: 'apiKey', label: 'API key', secret: true, optional: true },
  { name: 'defaultModel', label: 'Model', optional: true },
];
const STORAGE_FIELDS: ConnectionField[] = [
  { name: 'endpoint', label: 'Endpoint', placeholder: 'https://s3.eu-west-1.amazonaws.com' },
  { name: 'region', label: 'Region', placeholder: 'eu-west-1' },
  { name: 'bucket', label: 'Bucket' },
  { name: 'accessKeyId', label: 'Access key id' },
  { name: 'secretAccessKey', label: 'Secret access key', secret: true },
  { name: 'prefix', label: 'Prefix', optional: true },
  { name: 'forcePathStyle', label: 'Path-style addressing (MinIO)', kind: 'boolean' },
];

/** A connection is saved whole: the API keeps nothing of the one it replaces. */
const REPLACES = 'Saving replaces the whole connection: a field left empty is not kept from the current one.';

/** DNS providers, AI providers and the backups' remote storage: connect (checked by the provider first), see what was found, disconnect. */
export function Connections() {
  const settings = useSignal<Settings | null>(null);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/settings');
    if (failed) return void (error.value = messageOf(failed));
    settings.value = data.settings;
  };
  useEffect(() => {
    void load();
  }, []);
  // Each answer's error is shown at its own form; success reloads what the settings show.
  const after = async (answer: Promise<{ error?: unknown }>) => {
    const { error: failed } = await answer;
    if (failed) return failed;
    await load();
    return null;
  };
  const disconnect = async (what: string, consequence: string, answer: () => Promise<{ error?: unknown }>) => {
    if (!(await confirmDialog({ title: `Disconnect ${what}?`, body: consequence, confirmLabel: 'Disconnect', danger: true }))) return;
    const failed = await after(answer());
    error.value = failed ? messageOf(failed) : null;
  };

  const s = settings.value;
  if (!s) return <ErrorNote message={error.value} />;
  const dnsPath = (p: DnsProvider) => ({ params: { path: { providerId: p.id } } });
  const aiPath = (p: AiProvider) => ({ params: { path: { providerId: p.id } } });
  const storage = s.remoteStorage;
  return (
    <>
      <ErrorNote message={error.value} />
      <section aria-labelledby="dns-providers">
        <h2 id="dns-providers">DNS providers</h2>
        {s.dnsProviders.map((p) => (
          <details key={p.id} open={p.connected}>
            <summary>
              <strong>{p.name}</strong> —{' '}
              {p.connected ? (
                <>
                  connected <RelativeTime at={p.connectedAt} />, zones: {p.zones.join(', ') || 'none'}
                </>
              ) : (
                'not connected'
              )}
            </summary>
            {p.connected && (
              <DangerButton
                label="Disconnect"
                what={p.name}
                onClick={() => void disconnect(p.name, `Slipway stops managing DNS records through ${p.name}; connecting it again needs its credentials.`, () => api.DELETE('/api/settings/dns-providers/{providerId}', dnsPath(p)))}
              />
            )}
            <ConnectionForm
              id={`dns-${p.id}`}
              label={`Connect ${p.name}`}
              fields={DNS_FIELDS[p.id]}
              submit={p.connected ? 'Replace credentials' : 'Connect'}
              connect={(body) => after(api.PUT('/api/settings/dns-providers/{providerId}', { ...dnsPath(p), body: body as BodyOf<'/api/settings/dns-providers/{providerId}'> }))}
            />
          </details>
        ))}
      </section>
      <section aria-labelledby="ai-providers">
        <h2 id="ai-providers">AI providers</h2>
        <p class="type">Failed deployments are explained by the connected provider; the built-in rules work offline.</p>
        {s.aiProviders.map((p) =>
          p.id === 'builtin' ? (
            <p key={p.id} class="always-on">
              <strong>{p.name}</strong> — always on
            </p>
          ) : (
            <details key={p.id} open={p.connected}>
              <summary>
                <strong>{p.name}</strong> —{' '}
                {'models' in p ? (
                  <>
                    connected <RelativeTime at={p.connectedAt} />, model {p.defaultModel ?? p.models[0] ?? 'default'}
                  </>
                ) : (
                  'not connected'
                )}
              </summary>
              {p.connected && (
                <DangerButton
                  label="Disconnect"
                  what={p.name}
                  onClick={() => void disconnect(p.name, `Failed deployments are no longer explained through ${p.name}; connecting it again needs its settings.`, () => api.DELETE('/api/settings/ai-providers/{providerId}', aiPath(p)))}
                />
              )}
              <ConnectionForm
                id={`ai-${p.id}`}
                label={`Connect ${p.name}`}
                fields={AI_FIELDS}
                submit={p.connected ? 'Change connection' : 'Connect'}
                note={p.connected ? REPLACES : undefined}
                connect={(body) => after(api.PUT('/api/settings/ai-providers/{providerId}', { ...aiPath(p), body }))}
              />
            </details>
          ),
        )}
      </section>
      <section aria-labelledby="remote-storage">
        <h2 id="remote-storage">Remote storage for backups</h2>
        {'bucket' in storage ? (
          <p>
            Connected <RelativeTime at={storage.connectedAt} />: <code>{storage.bucket}</code> at {storage.endpoint} ({storage.region}), key {storage.accessKeyId}
            {storage.prefix && `, prefix ${storage.prefix}`}{' '}
            <DangerButton
              label="Disconnect"
              what="the remote storage"
              onClick={() => void disconnect('the remote storage', 'Backups can no longer be written to it or read from it until it is connected again, with its credentials.', () => api.DELETE('/api/settings/remote-storage'))}
            />
          </p>
        ) : (
          <p>Not connected. Slipway writes, reads back and deletes a probe object before it saves the connection.</p>
        )}
        <ConnectionForm
          id="storage"
          label="Connect remote storage"
          fields={STORAGE_FIELDS}
          submit={storage.connected ? 'Replace connection' : 'Connect'}
          note={storage.connected ? REPLACES : undefined}
          connect={(body) => after(api.PUT('/api/settings/remote-storage', { body: body as BodyOf<'/api/settings/remote-storage'> }))}
        />
      </section>
    </>
  );
}
