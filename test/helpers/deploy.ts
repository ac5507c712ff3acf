import { PACK_ENV } from './docker.js';
import { freePort, getVia } from './net.js';
import type { TestServer } from './test-server.js';

const FINISHED = ['succeeded', 'failed', 'aborted'];

/** Server settings for deployment tests: a real Caddy, local packbuilder images, short waits. */
export async function deployEnv(extra: Record<string, string> = {}) {
  const proxyPort = await freePort();
  // Below the kernel's ephemeral range (32768-60999), where an outgoing connection could hold a service's port.
  const low = 20_000 + Math.floor(Math.random() * 127) * 100;
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

/** The deployment once it has ended; throws, saying where it stood, if it has not within `timeoutMs`. */
export async function waitForDeployment(s: TestServer, serviceId: string, deploymentId: string, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const list = (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as Record<string, any>[] | undefined;
    const found = list?.find((d) => d.id === deploymentId);
    if (found && FINISHED.includes(found.status)) return found;
    if (Date.now() > end) throw new Error(`deployment ${deploymentId} did not end within ${timeoutMs} ms (status ${found?.status ?? 'not listed'})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export async function deploy(s: TestServer, serviceId: string) {
  const queued = await s.call('POST', `/api/services/${serviceId}/deployments`);
  if (queued.status !== 200) throw new Error(`deploy: ${queued.status} ${JSON.stringify(queued.body)}`);
  return { queued: queued.body.deployment as Record<string, any>, done: await waitForDeployment(s, serviceId, queued.body.deployment.id) };
}

export async function logLines(s: TestServer, deploymentId: string): Promise<string[]> {
  return ((await s.call('GET', `/api/deployments/${deploymentId}/logs`)).body.logs as { line: string }[]).map((l) => l.line);
}

/** One GET on a fresh connection, as a new client would send it; a failure is reported, never thrown. */
export const probe = (port: number, host = 'localhost') => getVia(port, host).catch((e: unknown) => ({ status: 0, body: String(e) }));

/** Requests without pause until stopped; returns every answer. */
export function steadyLoad(port: number, host: string) {
  const results: { status: number; body: string }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) results.push(await probe(port, host));
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
