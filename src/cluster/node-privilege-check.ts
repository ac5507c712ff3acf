import type Docker from 'dockerode';
import type { Logger } from '../logger.js';
import { daemonNoNewPrivileges, unprotectedNodes } from './node-privileges.js';
import type { SwarmNodeView } from './swarm-engine.js';

/** A daemon's defaults change only when it restarts with another config: each node is asked again now and then. */
const ASK_EVERY_MS = 5 * 60_000;
/** A node that did not answer is asked again sooner. */
const RETRY_AFTER_MS = 15_000;
const ASK_TIMEOUT_MS = 15_000;

export interface NodePrivilegeCheckDeps {
  nodeDocker(nodeId: string): Promise<Docker>;
  managerApiVersion(): Promise<string>;
  log: Logger;
}

/**
 * What Slipway knows of each node's no-new-privileges default, asked in the background (never on a request: a
 * node that does not answer must not hold the node list) and kept between asks. Warns once for each node that
 * runs app tasks without it, again if it is back after having been fixed.
 */
export class NodePrivilegeCheck {
  private readonly known = new Map<string, { enforced: boolean | null; nextAt: number }>();
  private readonly warned = new Set<string>();
  private pass: Promise<void> | null = null;

  constructor(private readonly deps: NodePrivilegeCheckDeps) {}

  /** The node's daemon default; null while not known. */
  of(nodeId: string): boolean | null {
    return this.known.get(nodeId)?.enforced ?? null;
  }

  /** Starts a pass over `nodes` (as Swarm lists them now) unless one is under way. */
  check(nodes: readonly SwarmNodeView[]): void {
    if (this.pass) return;
    this.pass = this.run(nodes)
      .catch((error: unknown) => this.deps.log.warn('the nodes could not be checked for no-new-privileges', { error: String(error) }))
      .finally(() => (this.pass = null));
  }

  /** Resolves once no pass is under way. */
  async idle(): Promise<void> {
    await this.pass;
  }

  private async run(nodes: readonly SwarmNodeView[]) {
    const now = Date.now();
    const due = nodes.filter((n) => n.state === 'ready' && (this.known.get(n.id)?.nextAt ?? 0) <= now);
    await Promise.all(due.map((n) => this.ask(n.id)));
    for (const id of this.known.keys()) if (!nodes.some((n) => n.id === id)) this.known.delete(id);
    const unprotected = unprotectedNodes(
      nodes.map((n) => ({ id: n.id, hostname: n.hostname, engineVersion: n.engineVersion, daemon: this.of(n.id), appTasks: n.tasks.filter((t) => t.serviceId !== null).length })),
      await this.deps.managerApiVersion(),
    );
    for (const n of unprotected) {
      if (this.warned.has(n.id)) continue;
      this.warned.add(n.id);
      this.deps.log.warn(
        `node ${n.hostname} runs app tasks without no-new-privileges: its engine (${n.engineVersion || 'unknown version'}) cannot take it in a service spec before Docker 27 (API 1.46), and its daemon does not set it by default. Set "no-new-privileges": true in /etc/docker/daemon.json there and restart Docker`,
        { node: n.id, hostname: n.hostname, engineVersion: n.engineVersion },
      );
    }
    for (const id of [...this.warned]) if (!unprotected.some((n) => n.id === id)) this.warned.delete(id);
  }

  private async ask(nodeId: string) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ASK_TIMEOUT_MS / 1000} s`)), ASK_TIMEOUT_MS);
    try {
      const seen = await daemonNoNewPrivileges(await this.deps.nodeDocker(nodeId), controller.signal);
      this.known.set(nodeId, { enforced: seen?.enforced ?? null, nextAt: Date.now() + (seen?.enforced == null ? RETRY_AFTER_MS : ASK_EVERY_MS) });
    } catch {
      // What was known stays (a daemon's default does not change while it runs); the node is asked again soon.
      this.known.set(nodeId, { enforced: this.of(nodeId), nextAt: Date.now() + RETRY_AFTER_MS });
    } finally {
      clearTimeout(timer);
    }
  }
}
