import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Writes a chunk and, when the sink is full, waits until it drains or closes. The listener that loses the race
 * is removed (a dump waits thousands of times). A sink closed before the write is done ends it with an error.
 */
export async function writeWithBackpressure(sink: Writable, chunk: Buffer, closedMessage = 'the output was closed before the command ended'): Promise<void> {
  if (!sink.write(chunk)) {
    const settled = new AbortController();
    await Promise.race([once(sink, 'drain', { signal: settled.signal }), once(sink, 'close', { signal: settled.signal })]).finally(() => settled.abort());
  }
  if (sink.destroyed) throw new Error(closedMessage);
}
