import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFinished } from '../../commands/deployment/aggregate.js';
import { PACK_ENV } from './docker.js';
import type { ApiClient } from './http-resources.js';
import { freePort, getVia } from './net.js';

const RANGES = join(tmpdir(), 'slipway-test-host-ports');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A block of 100 host ports no other test process holds (test files run in parallel, each with its own
 * Slipway: two on one block would route one's port to the other's container). Below the kernel's
 * ephemeral range (32768-60999), where an outgoing connection could hold a service's port. Released when
 * the process exits; a block whose holder died is taken over.
 */
function claimHostPorts(): number {
  mkdirSync(RANGES, { recursive: true });
  const start = Math.floor(Math.random() * 127);
  for (let i = 0; i < 127; i++) {
    const low = 20_000 + ((start + i) % 127) * 100;
    const file = join(RANGES, String(low));
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
    } catch {
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder === process.pid || alive(holder)) continue;
      writeFileSync(file, String(process.pid));
    }
    process.once('exit', () => rmSync(file, { force: true }));
    return low;
  }
  throw new Error('every block of host ports is held by a running test');
}

/** Server settings for deployment tests: a real Caddy, local packbuilder images, short waits. */
export async function deployEnv(extra: Record<string, string> = {}) {
  const proxyPort = await freePort();
  const low = claimHostPorts();
  return {
    proxyPort,
    env: {
      SLIPWAY_DOCKER_SOCKET: '/var/run/docker.sock',
      SLIPWAY_PROXY: 'caddy',
      SLIPWAY_PROXY_HTTP_PORT: String(proxyPort),
      SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`,
      SLIPWAY_HOST_PORT_RANGE: `${low}-${low + 99}`,
      SLIPWAY_START_TIMEOUT: '20',
      SLIPWAY_WORKER_SETTLE: '1',
      SLIPWAY_DRAIN: '1',
      SLIPWAY_STOP_GRACE: '2',
      ...PACK_ENV,
      ...extra,
    },
  };
}

export async function deploymentOf(s: ApiClient, serviceId: string, deploymentId: string): Promise<Record<string, any> | undefined> {
  const list = (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as Record<string, any>[] | undefined;
  return list?.find((d) => d.id === deploymentId);
}

/** The deployment once it has ended; throws, saying where it stood, if it has not within `timeoutMs`. */
export async function waitForDeployment(s: ApiClient, serviceId: string, deploymentId: string, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = await deploymentOf(s, serviceId, deploymentId);
    if (found && isFinished(found.status)) return found;
    if (Date.now() > end) {
      const tail = (await logLines(s, deploymentId).catch(() => [])).slice(-12).join('\n  ');
      throw new Error(`deployment ${deploymentId} did not end within ${timeoutMs} ms (status ${found?.status ?? 'not listed'}); its log ends:\n  ${tail}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

export async function queueDeployment(s: ApiClient, serviceId: string): Promise<Record<string, any>> {
  const queued = await s.call('POST', `/api/services/${serviceId}/deployments`);
  if (queued.status !== 200) throw new Error(`deploy: ${queued.status} ${JSON.stringify(queued.body)}`);
  return queued.body.deployment;
}

export async function deploy(s: ApiClient, serviceId: string) {
  const queued = await queueDeployment(s, serviceId);
  return { queued, done: await waitForDeployment(s, serviceId, queued.id) };
}

/** A deployment's status, with its reason when it has one: an unexpected failure says why. */
export const outcome = (d: Record<string, any>) => (d.reason ? `${d.status}: ${d.reason}` : String(d.status));

export async function logLines(s: ApiClient, deploymentId: string): Promise<string[]> {
  return ((await s.call('GET', `/api/deployments/${deploymentId}/logs`)).body.logs as { line: string }[]).map((l) => l.line);
}

/** One GET on a fresh connection, as a new client would send it; a failure is reported, never thrown. */
export const probe = (port: number, host = 'localhost', timeoutMs?: number) =>
  getVia(port, host, '/', timeoutMs).catch((e: unknown) => ({ status: 0, body: String(e) }));

/**
 * Requests without pause until stopped; returns every answer, with when it was sent and how long it took.
 * A request counts as failed after `timeoutMs` (5 s by default) without an answer.
 */
export function steadyLoad(port: number, host: string, timeoutMs?: number) {
  const results: { status: number; body: string; atMs: number; ms: number }[] = [];
  let running = true;
  const started = Date.now();
  const loop = (async () => {
    while (running) {
      const sent = Date.now();
      results.push({ ...(await probe(port, host, timeoutMs)), atMs: sent - started, ms: Date.now() - sent });
    }
  })();
  return {
    results,
    async stop() {
      running = false;
      await loop;
      return results;
    },
  };
}
