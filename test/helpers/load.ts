import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** One client of the load: it sends its requests one after the other, never two at once. */
export interface LoadClient {
  /** Names the client in the results, e.g. `domain/fresh/1`. */
  name: string;
  /** What the client stands for (`fresh`, `keepalive`, `slow`…), to count results by kind. */
  kind: string;
  port: number;
  host: string;
  path: string;
  /** One connection reused for every request (true), or a fresh connection per request. */
  keepAlive: boolean;
  /** Pause after each answer, so the load does not starve the machine it measures. */
  pauseMs: number;
  /** Delay before the first request, to stagger slow clients. */
  startDelayMs?: number;
}

export interface RequestResult {
  client: string;
  kind: string;
  /** When the request was sent and when its answer (or error) was complete, in ms since the epoch (fractional). */
  startedAt: number;
  endedAt: number;
  /** null when no HTTP answer came (a connection-level error). */
  status: number | null;
  body: string;
  /** The error code (`ECONNRESET`…) or message when no HTTP answer came. */
  error: string | null;
  /** Which connection of this client carried the request (1, 2, …). */
  connection: number;
}

/** Generous: a slow request takes a second or two; a hung one must not stall the test. */
const REQUEST_TIMEOUT_MS = 15_000;

type FromWorker = { result: RequestResult } | { stopped: true };

/**
 * Several clients at once, each in its own loop, until stopped. Every request is recorded with its timing,
 * its answer or its error, and the connection it went on; nothing is retried. The clients run on a worker
 * thread: a test server in the test's own thread (PGlite is synchronous) must not hold up the requests or
 * skew their timings.
 */
export function startLoad(clients: readonly LoadClient[]) {
  const results: RequestResult[] = [];
  const worker = new Worker(new URL(import.meta.url), { workerData: { loadClients: clients } });
  const stopped = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: FromWorker) => ('result' in message ? results.push(message.result) : resolve()));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the load worker exited (code ${code}) before it was stopped`)));
  });
  stopped.catch(() => undefined);
  return {
    /** Filled as answers come in. */
    results,
    /** Lets every client finish the request it is sending, then returns all results. */
    async stop(): Promise<RequestResult[]> {
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
      return results;
    },
  };
}

const now = () => performance.timeOrigin + performance.now();

function send(client: LoadClient, agent: Agent | false, connectionOf: (socket: Socket) => number): Promise<RequestResult> {
  const startedAt = now();
  return new Promise((resolve) => {
    let connection = 0;
    const done = (status: number | null, body: string, error: string | null) =>
      resolve({ client: client.name, kind: client.kind, startedAt, endedAt: now(), status, body, error, connection });
    const req = request({ host: '127.0.0.1', port: client.port, path: client.path, headers: { host: client.host }, agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(res.statusCode ?? null, body, null));
      res.on('error', (error: NodeJS.ErrnoException) => done(null, body, error.code ?? error.message));
    });
    req.on('socket', (socket) => (connection = connectionOf(socket)));
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => done(null, '', error.code ?? error.message));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runClients(clients: readonly LoadClient[]) {
  let running = true;
  parentPort!.once('message', () => (running = false));
  await Promise.all(
    clients.map(async (client) => {
      const agent = client.keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
      const connections = new WeakMap<Socket, number>();
      let opened = 0;
      const connectionOf = (socket: Socket) => {
        if (!connections.has(socket)) connections.set(socket, ++opened);
        return connections.get(socket)!;
      };
      await sleep(client.startDelayMs ?? 0);
      try {
        while (running) {
          parentPort!.postMessage({ result: await send(client, agent, connectionOf) } satisfies FromWorker);
          await sleep(client.pauseMs);
        }
      } finally {
        if (agent) agent.destroy();
      }
    }),
  );
  parentPort!.postMessage({ stopped: true } satisfies FromWorker);
}

if (!isMainThread && (workerData as { loadClients?: LoadClient[] } | null)?.loadClients) {
  void runClients((workerData as { loadClients: LoadClient[] }).loadClients);
}
