import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { ROUTING_EVENT_TYPES, listRoutes, type RoutingRow } from '../../projections/routing-queries.js';
import type { CaddyAdminClient } from '../proxy/caddy-admin-client.js';
import { buildCaddyConfig, type ProxyResult, type ProxySettings, type Upstream } from '../proxy/caddy-config.js';
import { swarmServiceOf } from '../cluster/swarm-release-name.js';
import type { UpstreamSwitch } from '../proxy/upstream-switch.js';
import type { RecordedEvent } from '../eventstore/port.js';
import type { Reactor } from './reactor.js';

/** One NAT rule per service that has a running container (a stopped one's port is answered by Caddy; a Swarm service's router never moves). */
const natTargets = (rows: readonly RoutingRow[]) =>
  rows.flatMap((r) =>
    r.upstream_port === null || r.stopped || swarmServiceOf(r.current_container) ? [] : [{ hostPort: r.host_port, upstreamPort: r.upstream_port }],
  );

export interface ProxyTarget {
  client: CaddyAdminClient | null;
  /** Why there is no proxy to talk to, if there is none. */
  unavailable(): string | null;
}

/**
 * Pushes the routing read model to Caddy. Reloads are serialised; a caller waiting for its change
 * shares any reload that started after the read model had that change.
 */
export class ProxyReconciler implements Reactor {
  private chain: Promise<unknown> = Promise.resolve();
  private latest: { position: string; result: Promise<ProxyResult> } | null = null;
  /** The configuration Caddy last accepted: the same one again is not sent (a reload resets queued connections). */
  private loaded: string | null = null;

  constructor(
    private readonly db: SqlExecutor & Pick<SqlClient, 'asleep'>,
    private readonly runner: ProjectionRunner,
    private readonly target: ProxyTarget,
    /** Read at each reload: HTTPS and the ACME account are settings that change at run time. */
    private readonly settings: () => Promise<ProxySettings>,
    /** When set, a deployment moves a kernel rule and Caddy's configuration stays the same. */
    private readonly upstreams: UpstreamSwitch | null = null,
    /**
     * Cluster mode: where the router is published (its port is the release's upstream port), and the key it
     * serves only requests with.
     */
    private readonly clusterRouter: { host: string; key: () => Promise<string | null> } = { host: '127.0.0.1', key: async () => null },
  ) {
  }

  readonly name = 'proxy';

  /** A change to the routing read model reloads Caddy (or moves the NAT rules) once the read model has it. */
  async handle(batch: readonly RecordedEvent[]): Promise<void> {
    // A domain's address record was just made: Caddy's order for it most likely failed (the name did not
    // resolve yet) and waits a minute or more to retry. A forced load starts it again at once.
    if (batch.some((e) => e.type === 'DomainDnsRecordApplied')) {
      this.chain = this.chain.then(() => this.reload({ force: true })).catch(() => undefined);
    }
    if (!batch.some((e) => ROUTING_EVENT_TYPES.has(e.type))) return;
    // A failed reload is retried by reconcile; health reports it meanwhile.
    await this.sync(batch[batch.length - 1]!.position);
  }

  /** The proxy carries what the routing read model says: a reload that failed is tried again. */
  async reconcile(): Promise<void> {
    const result = await this.sync(this.runner.position);
    if (!result.ok && this.target.client && !this.target.unavailable()) await this.reloadNow();
  }

  /** Reload once the read model includes `position`; resolves with Caddy's real answer. */
  async sync(position: string | null): Promise<ProxyResult> {
    // A reload from a read model without the change would report a route it does not carry.
    if (!(await this.runner.waitFor(position, 30_000))) {
      return { ok: false, detail: 'the routing read model did not catch up with this change in 30 s; the proxy follows once it does' };
    }
    const wanted = position ?? '';
    if (this.latest && this.latest.position >= wanted) return this.latest.result;
    const startedAt = this.runner.position ?? '';
    const result = this.chain.then(() => this.reload());
    this.latest = { position: startedAt, result };
    this.chain = result.catch(() => undefined);
    return result;
  }

  /**
   * Re-applies the NAT rules now and then, without touching Caddy: a firewall reload that flushed the nat
   * table must not leave the sites down until the next deployment. Returns the stop function.
   */
  watchUpstreams(everyMs: number): () => void {
    const upstreams = this.upstreams;
    if (!upstreams) return () => undefined;
    // Routes change only through events, which wake a sleeping store: while it sleeps, the last ones hold.
    let rows: Awaited<ReturnType<typeof listRoutes>> | null = null;
    const timer = setInterval(() => {
      this.chain = this.chain.then(async () => {
        if (!rows || !this.db.asleep()) rows = await listRoutes(this.db);
        await upstreams.repair();
        await upstreams.apply(natTargets(rows));
      }).catch(() => undefined);
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Whether Caddy answers its admin API; a proxy that is off on purpose is healthy. */
  async health(): Promise<{ ok: boolean; detail: string }> {
    const reason = this.target.unavailable();
    if (!this.target.client) return { ok: /disabled|not started/.test(reason ?? ''), detail: reason ?? 'no proxy configured' };
    if (reason) return { ok: false, detail: reason };
    return (await this.target.client.ready())
      ? { ok: true, detail: `caddy answers at ${this.target.client.adminUrl}` }
      : { ok: false, detail: `caddy admin API unreachable at ${this.target.client.adminUrl}` };
  }

  /** Resolves once every reload and rule update queued so far has run (before the database closes). */
  async idle(): Promise<void> {
    await this.chain.catch(() => undefined);
  }

  /**
   * At stop. Caddy outlives Slipway: it is given the containers' own ports, so the NAT chain can go and the
   * sites keep answering (the next start moves them back onto the chain). A Caddy that refuses keeps the chain.
   */
  async detachUpstreams(): Promise<void> {
    const upstreams = this.upstreams;
    if (!upstreams) return;
    const detached = this.chain.then(async () => {
      const client = this.target.unavailable() ? null : this.target.client;
      if (client && (await client.ready()) && !(await this.reload({ direct: true })).ok) return;
      await upstreams.remove();
    });
    this.chain = detached.catch(() => undefined);
    await this.chain;
  }

  /** A fresh reload regardless of what ran before (start-up, Caddy restart). */
  async reloadNow(): Promise<ProxyResult> {
    this.latest = null;
    this.loaded = null;
    return this.sync(this.runner.position);
  }

  private upstreamOf(r: RoutingRow, switched: UpstreamSwitch | null, routerKey: string | null): Upstream | null {
    if (r.upstream_port === null) return null;
    const swarm = swarmServiceOf(r.current_container);
    // Without the key (no cluster in the log: impossible for a swarm release) the router would refuse it anyway.
    if (swarm) return routerKey ? { host: this.clusterRouter.host, port: r.upstream_port, via: { name: swarm, port: r.internal_port, key: routerKey } } : null;
    return switched ? switched.addressOf(r.host_port) : { host: '127.0.0.1', port: r.upstream_port };
  }

  /** `direct`: Caddy dials the containers' ports itself, without the NAT switch. */
  private async reload(options: { force?: boolean; direct?: boolean } = {}): Promise<ProxyResult> {
    const reason = this.target.unavailable();
    if (reason || !this.target.client) return { ok: false, detail: reason ?? 'no proxy configured' };
    const rows = await listRoutes(this.db);
    const switched = options.direct ? null : this.upstreams;
    if (switched) {
      const targets = natTargets(rows);
      try {
        await switched.apply(targets);
      } catch (error) {
        return { ok: false, detail: `switching the upstreams failed: ${(error as Error).message}` };
      }
    }
    const routerKey = rows.some((r) => swarmServiceOf(r.current_container)) ? await this.clusterRouter.key() : null;
    const routes = rows.map((r) => ({
      id: r.service_id,
      hostnames: r.hostnames,
      hostPort: r.host_port,
      upstream: this.upstreamOf(r, switched, routerKey),
      ...(r.stopped ? { stopped: true } : {}),
    }));
    const config = JSON.stringify(buildCaddyConfig(await this.settings(), routes));
    if (config === this.loaded && !options.force) return { ok: true, detail: 'caddy configuration loaded' };
    const result = await this.target.client.load(config, options);
    this.loaded = result.ok ? config : null;
    return result;
  }
}
