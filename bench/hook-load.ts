import { createHmac, randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** A project with two generic-webhook services: one to hold open, one to deliver to. */
export async function hookTargets(url: string, key: string) {
  const call = async (method: string, path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, any>;
  };
  const project = (await call('POST', '/api/projects', { name: 'Hook bench' })).project.id as string;
  const hooked = async (name: string) => {
    const svc = (await call('POST', `/api/projects/${project}/services`, { name, repoFullName: `acme/${name}`, branch: 'main', internalPort: 8080, env: [] })).service.id as string;
    const secret = (await call('PUT', `/api/services/${svc}/auto-deploy`, { enabled: true, provider: 'generic' })).autoDeploy.secret as string;
    return { path: `/api/hooks/${svc}/generic`, secret };
  };
  return { held: await hooked('held'), signed: await hooked('signed') };
}

/** A signed generic ping: its signature verifies, it is recorded, it queues nothing. */
export function signedPing(secret: string) {
  const body = JSON.stringify({ id: randomUUID(), event: 'ping' });
  const t = Math.floor(Date.now() / 1000);
  return { headers: { 'content-type': 'application/json', 'x-slipway-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` }, body };
}

/** Connections that send a hook request's head and one chunk of its body, then nothing. */
export function holdBodies(url: string, path: string, count: number): Socket[] {
  const { hostname, port } = new URL(url);
  return Array.from({ length: count }, () => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`),
    );
    socket.on('error', () => undefined);
    return socket;
  });
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
