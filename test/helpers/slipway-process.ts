import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Test } from 'tap';
import { createIptablesSwitch } from '../../src/proxy/upstream-switch.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { spawnServe } from './cli-process.js';
import { probe } from './deploy.js';
import { docker, removeProjectLeftovers } from './docker.js';
import type { ApiClient } from './http-resources.js';
import { eventually } from './net.js';

export interface SlipwayProcess {
  pid: number;
  url: string;
  call: ApiClient['call'];
  /** Everything it wrote to stderr (its JSON log). */
  logs(): string;
  /** Whether the process has exited. */
  exited(): boolean;
  /** SIGKILL, as a crash would; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** `slipway serve` as its own process on `dataDir`; resolves once it listens (recovery has run by then). */
export async function startSlipwayProcess(dataDir: string, env: Record<string, string>): Promise<SlipwayProcess> {
  const { child, url, logs } = await spawnServe(dataDir, { SLIPWAY_LOG: 'json', ...env }, 90_000);
  const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
  let gone = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exit.then(() => (gone = true));
  return {
    pid: child.pid!,
    url,
    logs,
    exited: () => gone,
    async call(method, path, { body } = {}) {
      const response = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      try {
        return { status: response.status, body: JSON.parse(text) };
      } catch {
        return { status: response.status, body: text };
      }
    },
    async kill() {
      if (!gone) child.kill('SIGKILL');
      await exit;
    },
  };
}

/**
 * What `port` answers (with Host `host`) once it answers `expected`, else its last answer after `timeoutMs`:
 * the caller asserts it. A route changes shortly after the event that changes it, not with it.
 */
export const answerOf = (port: number, host: string, expected: { status: number; body: string }, timeoutMs = 20_000) =>
  eventually(() => probe(port, host), (got) => got.status === expected.status && got.body === expected.body, timeoutMs);

/** Events of one stream (`service-<id>`, `deployment-<id>`), oldest first. */
export async function eventsOf(s: SlipwayProcess, stream: string): Promise<{ type: string; actor: string; data: any }[]> {
  return (await s.call('GET', `/api/events?limit=1000&stream=${encodeURIComponent(stream)}`)).body.events;
}

/**
 * One installation (a data directory) through crashes and restarts. Its teardown removes everything it
 * leaves behind on purpose or by accident: the process, the projects' containers, images and networks,
 * the Caddy that outlives Slipway, the NAT chain, the directory.
 */
export class Installation {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'slipway-crash-'));
  server: SlipwayProcess | null = null;
  private readonly projects: string[] = [];

  constructor(private readonly env: Record<string, string>) {}

  /** Starts `slipway serve` on this data directory (again), with `override` on top of the environment. */
  async start(override: Record<string, string> = {}): Promise<SlipwayProcess> {
    if (this.server && !this.server.exited()) throw new Error('the previous Slipway of this installation still runs');
    this.server = await startSlipwayProcess(this.dataDir, { ...this.env, ...override });
    return this.server;
  }

  /** SIGKILL, as a crash would. */
  async crash(): Promise<void> {
    await this.server?.kill();
  }

  async createProject(name: string): Promise<string> {
    const r = await this.server!.call('POST', '/api/projects', { body: { name, description: '' } });
    if (r.status !== 200) throw new Error(`create project: ${r.status} ${JSON.stringify(r.body)}`);
    this.projects.push(r.body.project.id);
    return r.body.project.id as string;
  }

  async cleanUp(): Promise<void> {
    await this.server?.kill();
    const instance = await this.instance();
    for (const id of this.projects) {
      await removeProjectLeftovers(id);
      // Concurrent first deployments of a project can make two networks of one name: removed by id.
      for (const n of await docker.listNetworks({ filters: { label: [`${LABEL.project}=${id}`] } })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
    }
    spawnSync('pkill', ['-f', `${this.dataDir}/caddy/bootstrap.json`]);
    if (instance) await (await createIptablesSwitch(instance, this.dataDir))?.remove();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** The installation's id: the `slipway.instance` label of what it created in the engine, else its database. */
  private async instance(): Promise<string | null> {
    for (const id of this.projects) {
      const filters = { label: [`${LABEL.project}=${id}`] };
      const labelled = [
        ...(await docker.listContainers({ all: true, filters })),
        ...(await docker.listImages({ filters })),
        ...(await docker.listNetworks({ filters })),
      ];
      const found = labelled.map((o) => o.Labels?.[LABEL.instance]).find(Boolean);
      if (found) return found;
    }
    if (!existsSync(join(this.dataDir, 'pgdata'))) return null;
    const db = await PGlite.create(join(this.dataDir, 'pgdata'));
    try {
      return (await db.query<{ id: string }>('select id from sys_instance')).rows[0]?.id ?? null;
    } finally {
      await db.close();
    }
  }
}

/** An installation whose leftovers go with the test. */
export function installation(t: Test, env: Record<string, string>): Installation {
  const created = new Installation(env);
  t.teardown(() => created.cleanUp());
  return created;
}
