import { WebSocket } from 'ws';

export interface ExecRefusal {
  status: number;
  body: any;
}

/** An open terminal session as a test drives it: what arrived, and how it ended. */
export interface ExecSocket {
  ws: WebSocket;
  /** Without a TTY, each binary frame split by its stream byte; with one, everything as stdout. */
  stdout: () => string;
  stderr: () => string;
  /** Control messages the server sent. */
  controls: Record<string, unknown>[];
  /** Resolves once the socket closed, with its close code and the exit message, if one came. */
  closed: Promise<{ code: number; exit: { exitCode: number | null } | null }>;
  /** Resolves once stdout contains `text`; rejects after `ms`. */
  waitFor(text: string | RegExp, ms?: number): Promise<string>;
}

export interface ExecOptions {
  query?: string;
  key?: string | null;
  headers?: Record<string, string>;
  protocols?: string[];
  tty?: boolean;
}

/** Opens `GET /api/services/:id/exec` as a WebSocket: the session, or the HTTP answer that refused it. */
export function openExec(baseUrl: string, serviceId: string, key: string | null, options: ExecOptions = {}): Promise<ExecSocket | ExecRefusal> {
  const url = `${baseUrl.replace(/^http/, 'ws')}/api/services/${serviceId}/exec${options.query ? `?${options.query}` : ''}`;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (key) headers.authorization = `Bearer ${key}`;
  const ws = new WebSocket(url, options.protocols ?? ['slipway.exec.v1'], { headers });
  const tty = options.tty ?? /(^|&)tty=1/.test(options.query ?? '');
  let out = '';
  let err = '';
  const controls: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data: Buffer, isBinary) => {
    if (!isBinary) controls.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
    else if (tty) out += data.toString('utf8');
    else if (data[0] === 2) err += data.subarray(1).toString('utf8');
    else out += data.subarray(1).toString('utf8');
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; exit: { exitCode: number | null } | null }>((resolve) =>
    ws.on('close', (code) => resolve({ code, exit: (controls.find((c) => c.type === 'exit') as { exitCode: number | null } | undefined) ?? null })),
  );
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Kept as text: the test says what it expected.
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        stdout: () => out,
        stderr: () => err,
        controls,
        closed,
        waitFor(text, ms = 10_000) {
          const seen = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
          if (seen()) return Promise.resolve(out);
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`${String(text)} did not arrive within ${ms} ms; the output was ${JSON.stringify(out)}`)), ms);
            waiters.push(() => {
              if (!seen()) return;
              clearTimeout(timer);
              done(out);
            });
          });
        },
      }),
    );
  });
}

export const isRefusal = (x: ExecSocket | ExecRefusal): x is ExecRefusal => 'status' in x;
