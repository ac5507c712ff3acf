import { isFinished } from '../../commands/deployment/aggregate.js';
import { PACK_ENV } from './docker.js';
import type { ApiClient } from './http-resources.js';
import { claimHostPorts } from './host-ports.js';
import { freePort, getVia, waitFor } from './net.js';

/** Server settings for deployment tests: a real Caddy, local packbuilder images, short waits. */
export async function deployEnv(extra: Record<string, string> = {}) {
  const proxyPort = await freePort();
  return {
    proxyPort,
    env: {
      SLIPWAY_DOCKER_SOCKET: '/var/run/docker.sock',
      SLIPWAY_PROXY: 'caddy',
      SLIPWAY_PROXY_HTTP_PORT: String(proxyPort),
      SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`,
      SLIPWAY_HOST_PORT_RANGE: claimHostPorts().range,
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

/**
 * The service's releases, newest first, once the newest is `version` and current: a release is recorded just
 * after its deployment's success (another aggregate), so a list read at once may not have it yet.
 */
export async function releasesUpTo(s: ApiClient, serviceId: string, version: number): Promise<Record<string, any>[]> {
  return waitFor(
    `release v${version} recorded as current`,
    async () => (await s.call('GET', `/api/services/${serviceId}/releases`)).body.releases as Record<string, any>[],
    (list) => list[0]?.version === version && list[0].current === true,
    10_000,
  );
}

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
