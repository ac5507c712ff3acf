import { request } from 'node:http';

export interface SseEvent {
  event: string;
  data: any;
  /** The event's `id:` line, when it has one. */
  id?: string;
  /** When the client received it (ms since the epoch). */
  at: number;
}

export interface SseReader {
  events: SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  status: number;
  contentType: string;
  close(): void;
}

/** Reads a Server-Sent Events stream as a client would; `key` null sends only the given headers (a session's cookie). */
export function readSse(url: string, key: string | null, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const req = request(url, { headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      let buffer = '';
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          const id = /^id: (.*)$/m.exec(block)?.[1];
          if (event && data !== undefined) events.push({ event, data: JSON.parse(data), at: Date.now(), ...(id === undefined ? {} : { id }) });
        }
      });
      res.on('end', endResolve);
      res.on('close', endResolve);
      resolve({ events, ended, status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
