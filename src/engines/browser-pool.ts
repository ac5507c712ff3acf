import type { Engine } from '../shared/database-engine.js';
import type { DatabaseBrowser, EngineEndpoint } from './browser.js';
import { createRemoteBrowser } from './remote-browser.js';

interface Entry {
  /** The release and credentials it was opened for: a redeploy or a changed password opens a new one. */
  key: string;
  browser: Promise<DatabaseBrowser>;
  timer: NodeJS.Timeout;
  users: number;
}

/** A service as the database routes need it, with where to connect: resolved once, kept until it changes. */
export interface ResolvedService<R> {
  row: R;
  target: BrowserTarget;
}

export interface BrowserTarget {
  serviceId: string;
  engine: Engine;
  deploymentId: string;
  endpoint: EngineEndpoint;
}

/**
 * One browser (each a small connection pool) per database service, closed after `idleMs` without use and
 * replaced when the service is redeployed or its credentials change. `drop` closes one at once (deletion).
 */
export class BrowserPool<R = unknown> {
  private readonly entries = new Map<string, Entry>();
  private readonly resolved = new Map<string, ResolvedService<R>>();

  constructor(
    private readonly idleMs = 60_000,
    private readonly open: (engine: Engine, endpoint: EngineEndpoint) => Promise<DatabaseBrowser> = createRemoteBrowser,
  ) {}

  async use<T>(target: BrowserTarget, work: (browser: DatabaseBrowser) => Promise<T>): Promise<T> {
    const key = `${target.deploymentId}|${JSON.stringify(target.endpoint)}`;
    let entry = this.entries.get(target.serviceId);
    if (entry && entry.key !== key) {
      this.drop(target.serviceId);
      entry = undefined;
    }
    if (!entry) {
      const browser = this.open(target.engine, target.endpoint);
      entry = { key, browser, timer: this.idleTimer(target.serviceId), users: 0 };
      this.entries.set(target.serviceId, entry);
      browser.catch(() => this.entries.get(target.serviceId) === entry && this.entries.delete(target.serviceId));
    }
    entry.users++;
    try {
      return await work(await entry.browser);
    } finally {
      entry.users--;
      entry.timer.refresh();
    }
  }

  /**
   * The service and its target, resolved by `resolve` (variables decrypted, references followed, CA read)
   * only when not known yet: browsing a table must not cost that at every request.
   */
  async resolve(serviceId: string, resolve: () => Promise<ResolvedService<R>>): Promise<ResolvedService<R>> {
    const known = this.resolved.get(serviceId);
    if (known) return known;
    const fresh = await resolve();
    this.resolved.set(serviceId, fresh);
    return fresh;
  }

  /** Forgets what was resolved for one service, or for all (a variable others may refer to changed). */
  forget(serviceId?: string) {
    if (serviceId === undefined) this.resolved.clear();
    else this.resolved.delete(serviceId);
  }

  drop(serviceId: string) {
    this.resolved.delete(serviceId);
    const entry = this.entries.get(serviceId);
    if (!entry) return;
    this.entries.delete(serviceId);
    clearTimeout(entry.timer);
    void entry.browser.then((b) => b.close()).catch(() => undefined);
  }

  async closeAll() {
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const e of all) clearTimeout(e.timer);
    await Promise.all(all.map((e) => e.browser.then((b) => b.close()).catch(() => undefined)));
  }

  private idleTimer(serviceId: string) {
    const timer = setTimeout(() => {
      const entry = this.entries.get(serviceId);
      if (entry?.timer !== timer) return;
      if (entry.users > 0) return timer.refresh();
      this.drop(serviceId);
    }, this.idleMs);
    timer.unref();
    return timer;
  }
}
