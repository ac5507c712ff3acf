import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface SseChannel {
  /** With an `id`, a client that reconnects sends it back as `Last-Event-ID`. */
  send(event: string, data: unknown, id?: string): void;
  /** How long a client waits before it reconnects. */
  retry(ms: number): void;
  /** A comment line: keeps proxies from closing an idle stream, invisible to EventSource. */
  comment(text: string): void;
  close(): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

/** Turns the response into a Server-Sent Events stream; closing either side runs the cleanups once. */
export function openSse(ctx: Context): SseChannel {
  const stream = new PassThrough();
  const cleanups: (() => void)[] = [];
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const fn of cleanups) fn();
    stream.end();
  };
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  ctx.status = 200;
  ctx.body = stream;
  ctx.req.on('close', finish);
  stream.on('error', finish);
  return {
    send(event, data, id) {
      if (!closed) stream.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    retry(ms) {
      if (!closed) stream.write(`retry: ${ms}\n\n`);
    },
    comment(text) {
      if (!closed) stream.write(`: ${text}\n\n`);
    },
    close: finish,
    onClose(fn) {
      if (closed) fn();
      else cleanups.push(fn);
    },
    get closed() {
      return closed;
    },
  };
}
