import type { ProxyResult } from './caddy-config.js';

/** Talks to Caddy's admin API; every answer is reported as it came, never assumed. */
export class CaddyAdminClient {
  constructor(readonly adminUrl: string, private readonly timeoutMs = 5000) {}

  /**
   * `config` is the whole configuration as JSON text. Caddy skips a configuration equal to the running one;
   * `force` loads it anyway, which also starts certificate management afresh (a failed order is retried now).
   */
  async load(config: string, options: { force?: boolean } = {}): Promise<ProxyResult> {
    try {
      const response = await fetch(new URL('/load', this.adminUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.force ? { 'cache-control': 'must-revalidate' } : {}) },
        body: config,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await response.text();
      if (response.ok) return { ok: true, detail: 'caddy configuration loaded' };
      let message = text.trim();
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? message;
      } catch {
        // Not JSON: keep the raw text.
      }
      return { ok: false, detail: `caddy rejected the configuration (HTTP ${response.status}): ${message}` };
    } catch (error) {
      return { ok: false, detail: `caddy admin API unreachable at ${this.adminUrl}: ${(error as Error).message}` };
    }
  }

  /** Asks Caddy to exit (it finishes the requests under way); false when it did not answer. */
  async stop(): Promise<boolean> {
    try {
      return (await fetch(new URL('/stop', this.adminUrl), { method: 'POST', signal: AbortSignal.timeout(this.timeoutMs) })).ok;
    } catch {
      return false;
    }
  }

  async ready(): Promise<boolean> {
    try {
      const response = await fetch(new URL('/config/', this.adminUrl), { signal: AbortSignal.timeout(1000) });
      return response.ok;
    } catch {
      return false;
    }
  }
}
