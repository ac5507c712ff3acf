import type { Context } from 'koa';
import type { AppliedListener } from '../../projections/runner.js';
import { openSse } from './sse.js';

const PING_MS = 5_000;

/** What a log's stream reads: a deployment's or a run's lines, and whether (and how) it has ended. */
export interface LogSource<Line extends { id: number }> {
  /** The lines after `after` (all of them when absent), oldest first. */
  lines(after?: number): Promise<Line[]>;
  present(line: Line): unknown;
  /** null while it goes on; once it has ended (or is gone), what `end` says (nothing: the stream just closes). */
  ended(): Promise<{ end?: unknown } | null>;
}

/**
 * A log as Server-Sent Events: `snapshot` (the lines so far) first, then a `log` event per new line as the read
 * model applies it, and once it has ended, `end` (when the source says one) and the stream closes.
 */
export async function streamLog<Line extends { id: number }>(
  ctx: Context,
  runner: { onApplied(listener: AppliedListener): () => void },
  id: string,
  source: LogSource<Line>,
): Promise<void> {
  const sse = openSse(ctx);
  let last = 0;
  let running: Promise<void> | null = null;
  let again = false;
  // A batch applied while the snapshot is read is pumped after it: the snapshot is always the first event.
  let snapshotSent = false;
  const pump = async () => {
    do {
      again = false;
      const ended = await source.ended();
      for (const line of await source.lines(last)) {
        sse.send('log', source.present(line));
        last = line.id;
      }
      if (ended) {
        if (ended.end !== undefined) sse.send('end', ended.end);
        sse.close();
      }
    } while (again && !sse.closed);
  };
  const kick = () => {
    if (sse.closed || !snapshotSent) return;
    if (running) {
      again = true;
      return;
    }
    running = pump()
      .catch(() => sse.close())
      .finally(() => (running = null));
  };
  const unsubscribe = runner.onApplied((batch) => {
    if (batch.some((e) => e.streamId.endsWith(id) || e.type === 'ServiceDeleted')) kick();
  });
  const ping = setInterval(() => sse.send('ping', { t: Date.now() }), PING_MS);
  sse.onClose(() => {
    unsubscribe();
    clearInterval(ping);
  });
  const snapshot = await source.lines();
  last = snapshot.at(-1)?.id ?? 0;
  sse.send('snapshot', snapshot.map((line) => source.present(line)));
  snapshotSent = true;
  kick();
}
