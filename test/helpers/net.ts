import { request } from 'node:http';
import { createServer } from 'node:net';
import { claimPort } from './host-ports.js';

/** Whether `port` can be bound on every address now. */
function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A port for a listener the test starts later, held for this test process alone (see `claimPort`). */
export const freePort = (): Promise<number> => claimPort(bindable);

/** GET through a proxy port with a chosen Host header (fetch may not set Host). */
export function getVia(port: number, host: string, path = '/', timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      // A body cut short (the upstream died mid-answer) emits no 'end', and 'error' only to a listener.
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch((e: unknown) => e as T);
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `fn` until `ok`; throws, naming what it waited for and the last value, after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const value = await eventually(fn, ok, timeoutMs);
  if (!ok(value)) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}; last seen: ${String(JSON.stringify(value) ?? value).slice(0, 300)}`);
  return value;
}
