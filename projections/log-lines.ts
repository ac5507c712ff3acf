import type { LogLine } from '../commands/shared/log-chunk.js';
import type { BatchWriter } from './batch-writer.js';

/** A log chunk's lines as rows of a log table (a deployment's, a run's), keyed by their owner and line number. */
export function upsertLogLines(out: BatchWriter, table: string, owner: { column: string; id: string }, chunk: { first: number; lines: LogLine[] }) {
  chunk.lines.forEach((l, i) =>
    out.upsert({
      table,
      row: { [owner.column]: owner.id, id: chunk.first + i, line: l.line, stream: l.stream, created_at: l.at },
      key: [owner.column, 'id'],
      update: [],
    }),
  );
}
