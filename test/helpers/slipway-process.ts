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

const FINISHED = ['succeeded', 'failed', 'aborted'];

export interface SlipwayProcess {
  pid: number;
  url: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
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
    async call(method, path, body) {
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

/** Polls `check` until it returns a value other than undefined; throws naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`waited ${timeoutMs / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * What `port` answers (with Host `host`) once it answers `expected`, else its last answer after `timeoutMs`:
 * the caller asserts it. A route changes shortly after the event that changes it, not with it.
 */
export async function answerOf(port: number, host: string, expected: { status: number; body: string }, timeoutMs = 20_000) {
  return waitFor(`${host}:${port} to answer ${JSON.stringify(expected)}`, async () => {
    const got = await probe(port, host);
    return got.status === expected.status && got.body === expected.body ? got : undefined;
  }, timeoutMs).catch(() => probe(port, host));
}

export async function deploymentOf(s: SlipwayProcess, serviceId: string, id: string): Promise<Record<string, any> | undefined> {
  const list = (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as Record<string, any>[] | undefined;
  return list?.find((d) => d.id === id);
}

/** The deployment once it has ended; throws, saying where it stood, if it has not within `timeoutMs`. */
export async function finished(s: SlipwayProcess, serviceId: string, id: string, timeoutMs = 120_000) {
  let last: Record<string, any> | undefined;
  try {
    return await waitFor(
      `deployment ${id} to end`,
      async () => {
        last = await deploymentOf(s, serviceId, id);
        return last && FINISHED.includes(last.status) ? last : undefined;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message} (status ${last?.status ?? 'not listed'})`);
  }
}

/** A deployment's status, with its reason when it has one: an unexpected failure says why. */
export const outcome = (d: Record<string, any>) => (d.reason ? `${d.status}: ${d.reason}` : String(d.status));

export async function queueDeployment(s: SlipwayProcess, serviceId: string): Promise<string> {
  const r = await s.call('POST', `/api/services/${serviceId}/deployments`);
  if (r.status !== 200) throw new Error(`deploy: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.deployment.id as string;
}

export async function logLines(s: SlipwayProcess, deploymentId: string): Promise<string[]> {
  return ((await s.call('GET', `/api/deployments/${deploymentId}/logs`)).body.logs as { line: string }[]).map((l) => l.line);
}

/** Events of one stream (`service-<id>`, `deployment-<id>`), oldest first. */
export async function eventsOf(s: SlipwayProcess, stream: string): Promise<{ type: string; actor: string; data: any }[]> {
  return (await s.call('GET', `/api/events?limit=1000&stream=${encodeURIComponent(stream)}`)).body.events;
}

export async function createService(s: SlipwayProcess, projectId: string, body: Record<string, unknown>) {
  const r = await s.call('POST', `/api/projects/${projectId}/services`, body);
  if (r.status !== 200) throw new Error(`create service: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.service as { id: string; name: string; hostPort: number };
}

export async function addDomain(s: SlipwayProcess, serviceId: string, hostname: string) {
  const r = await s.call('POST', `/api/services/${serviceId}/domains`, { hostname });
  if (r.status !== 200) throw new Error(`add domain: ${r.status} ${JSON.stringify(r.body)}`);
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
    const r = await this.server!.call('POST', '/api/projects', { name, description: '' });
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
    if (instance) await (await createIptablesSwitch(instance))?.remove();
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

/**
 * A small web app that answers `version` (it builds in about a second). `buildStep` adds a Dockerfile line
 * before the app starts; `command` replaces how it starts.
 */
export function versionedApp(version: string, options: { buildStep?: string; command?: string[] } = {}): Record<string, string> {
  const command = options.command ?? ['python3', '-u', 'server.py'];
  return {
    Dockerfile: `FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY server.py .\n${options.buildStep ? `${options.buildStep}\n` : ''}CMD ${JSON.stringify(command)}\n`,
    'server.py': `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"${version}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
  };
}
