import { readSse, type SseReader } from './sse.js';

/** An SSE stream read until the server ends it; throws, naming the stream, if it has not within `timeoutMs`. */
export async function readSseToEnd(url: string, key: string, timeoutMs = 15_000): Promise<SseReader> {
  const reader = await readSse(url, key);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = await Promise.race([reader.ended.then(() => 'ended' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    reader.close();
    throw new Error(`${url} was still open after ${timeoutMs} ms (events so far: ${reader.events.map((e) => e.event).join(', ') || 'none'})`);
  }
  return reader;
}
