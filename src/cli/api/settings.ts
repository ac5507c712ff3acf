import { answer, apiClient } from './client.js';
import { out, table } from './output.js';
import { type Output } from './resources.js';
import { UsageError } from './usage-error.js';

const shown = (value: unknown) => (value === null || value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value));

/** The settings a `sources` entry exists for: whatever the server has, so new ones show without a CLI change. */
export async function showSettings(o: Output) {
  const { api } = apiClient();
  const answered = await answer(api.GET('/api/settings'));
  if (o.json) {
    out(JSON.stringify(answered));
    return;
  }
  const data = answered.settings;
  const values = data as unknown as Record<string, unknown>;
  const sources = data.sources as Record<string, string>;
  out(table(['NAME', 'VALUE', 'SOURCE'], Object.keys(sources).map((name) => [name, shown(values[name]), sources[name]!])));
  out('');
  out(`proxy: ${data.proxy.mode} (http ${data.proxy.httpPort}, https ${data.proxy.httpsPort}); backups at ${data.backups.hourUtc}:00 UTC`);
  out(`remote storage: ${data.remoteStorage.connected ? 'connected' : 'not connected'}; AI providers: ${data.aiProviders.filter((p) => p.connected).map((p) => p.id).join(', ') || 'builtin only'}; DNS providers: ${data.dnsProviders.filter((p) => p.connected).map((p) => p.id).join(', ') || 'none'}`);
}

/**
 * `KEY=VALUE`: the value as JSON when it parses (true, 3, ["a"], null), else the string; `KEY=` is null (the
 * environment's default). A list setting (`lists`) also takes the comma-separated form of its environment
 * variable: `allowedDestinations=127.0.0.1:8499,10.0.0.0/8`.
 */
export function settingsPatch(args: readonly string[], lists: ReadonlySet<string> = new Set()): Record<string, unknown> {
  if (args.length === 0) throw new UsageError('give KEY=VALUE …, e.g. slipway settings set httpsEnabled=false');
  const patch: Record<string, unknown> = {};
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at <= 0) throw new UsageError(`${JSON.stringify(arg)} is not KEY=VALUE`);
    const raw = arg.slice(at + 1);
    let value: unknown = raw;
    if (raw === '') value = null;
    else {
      try {
        value = JSON.parse(raw);
      } catch {
        // Not JSON: the string itself (an image name, a host name).
      }
    }
    const key = arg.slice(0, at);
    if (lists.has(key) && typeof value === 'string') value = value.split(',').map((item) => item.trim()).filter(Boolean);
    patch[key] = value;
  }
  return patch;
}

export async function setSettings(args: readonly string[], o: Output) {
  const { api } = apiClient();
  // Which settings are lists, as the server has them now: new ones take the comma form without a CLI change.
  const current = (await answer(api.GET('/api/settings'))).settings as unknown as Record<string, unknown>;
  const patch = settingsPatch(args, new Set(Object.keys(current).filter((key) => Array.isArray(current[key]))));
  // The server validates the keys and values; the CLI lists none, so settings added later work unchanged.
  const data = await answer(api.PATCH('/api/settings', { body: patch as never }));
  if (o.json) {
    out(JSON.stringify(data));
    return;
  }
  const sources = data.settings.sources as Record<string, string>;
  const values = data.settings as unknown as Record<string, unknown>;
  for (const key of Object.keys(patch)) out(`${key} = ${shown(values[key])}${sources[key] ? ` (${sources[key]})` : ''}`);
}
