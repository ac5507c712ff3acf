import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A Swarm release is live only once its route answers end to end: the host's Caddy, the cluster's router, the
 * router's DNS lookup of the tasks and a task. Swarm's "update completed" says nothing about the router's view:
 * a task's DNS record reaches the manager's resolver by gossip, after the task turned healthy on its node.
 */
export interface RouteCheck {
  /** The service's host port: the host's Caddy listens on it for the service, whatever its domains. */
  port: number;
  path: string;
  /** The whole wait, and one request's (the router holds a request while it finds no task). */
  timeoutMs: number;
  attemptMs: number;
  /** Between a request that failed and the next. */
  retryMs: number;
}

export type RouteAnswer = { status: number; body: string } | { error: string };

/** The host's Caddy's own answer for a service whose route has no upstream yet (caddy-config.ts). */
const NOT_DEPLOYED = /no running deployment yet/;

/**
 * Whether an answer came from the app. 502 and 504 are the proxies' (no task reached, or none in time), 421 the
 * router refusing a request without its key, and the host's "no running deployment" 503 a route not switched
 * yet; any other status, 5xx included, is the app's own answer.
 */
export function answeredByApp(answer: RouteAnswer): boolean {
  if ('error' in answer) return false;
  if (answer.status === 502 || answer.status === 504 || answer.status === 421) return false;
  return !(answer.status === 503 && NOT_DEPLOYED.test(answer.body));
}

export const describeAnswer = (answer: RouteAnswer) => ('error' in answer ? answer.error : `HTTP ${answer.status}`);

/** One GET through the host's proxy, on a fresh connection. */
export function getThroughProxy(port: number, path: string, timeoutMs: number): Promise<RouteAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const req = request({ host: '127.0.0.1', port, path, headers: { host: 'localhost' }, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (error) => resolve({ error: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${Math.round((Date.now() - started) / 1000)} s`)));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end();
  });
}

/**
 * Requests the route until the app answers through it; resolves with how long that took, or with the last
 * failed answer when `timeoutMs` ran out. `note` gets each failed answer that differs from the one before.
 */
export async function waitForRoute(
  check: RouteCheck,
  signal: AbortSignal,
  note: (line: string) => void,
  get: (port: number, path: string, timeoutMs: number) => Promise<RouteAnswer> = getThroughProxy,
): Promise<{ ok: true; ms: number; answer: RouteAnswer } | { ok: false; last: RouteAnswer }> {
  const started = Date.now();
  let last: RouteAnswer | null = null;
  for (;;) {
    signal.throwIfAborted();
    const left = started + check.timeoutMs - Date.now();
    const answer = await get(check.port, check.path, Math.max(1, Math.min(check.attemptMs, left)));
    if (answeredByApp(answer)) return { ok: true, ms: Date.now() - started, answer };
    if (last === null || describeAnswer(answer) !== describeAnswer(last)) note(`The route does not answer yet: ${describeAnswer(answer)}`);
    last = answer;
    if (Date.now() - started + check.retryMs >= check.timeoutMs) return { ok: false, last };
    await sleep(check.retryMs, undefined, { signal }).catch(() => undefined);
  }
}
