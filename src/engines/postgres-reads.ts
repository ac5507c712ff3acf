// How the Postgres browser reads from a connection: queries with a client-side deadline, and the console's cursor.
import type { EventEmitter } from 'node:events';
import pg from 'pg';
import Cursor from 'pg-cursor';

/**
 * How long a browsing query may wait for an answer on the client side. A server that vanished without closing the
 * connection (a container removed behind a port mapping) would otherwise leave the request waiting for ever.
 */
const BROWSE_DEADLINE_MS = 30_000;

/** A query answered within BROWSE_DEADLINE_MS or failed (pg's types do not list its `query_timeout`). */
export function bounded(text: string, values: unknown[] = []): pg.QueryConfig {
  const config: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: BROWSE_DEADLINE_MS };
  return config;
}

/** What the console needs of a client beyond pg's types: its backend's pid and its socket. */
export type ConsoleClient = pg.PoolClient & { processID: number; connection: EventEmitter & { stream: { destroy(): void; destroyed: boolean } } };

/**
 * pg-cursor has no handlers for the COPY sub-protocol: `COPY … FROM STDIN` or `TO STDOUT` through it would throw
 * inside the connection's event handlers. The console has no stream to give: it refuses the one and drops the other's data.
 */
class ConsoleCursor extends Cursor {
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }) {
    connection.sendCopyFail('COPY FROM STDIN cannot read from the SQL console; insert rows with INSERT or POST rows instead');
  }

  handleCopyData() {}
}

/** Runs one statement through a cursor and reads at most `limit` rows, so a huge result is never held. */
export function readCursor(client: ConsoleClient, text: string, limit: number) {
  const cursor = client.query(new ConsoleCursor(text));
  return new Promise<{ rows: Record<string, unknown>[]; fields: pg.FieldDef[]; rowCount: number | null; command: string }>((resolve, reject) => {
    // Closing the cursor waits for the server's answer, which a cut connection never gives: its end settles too.
    const afterClose = (settle: () => void) => {
      let settled = false;
      const once = () => {
        if (settled) return;
        settled = true;
        client.connection.off('end', once);
        settle();
      };
      client.connection.once('end', once);
      if (client.connection.stream.destroyed) once();
      else cursor.close(once);
    };
    cursor.read(limit, (error, rows, result) => {
      if (error) afterClose(() => reject(error));
      else afterClose(() => resolve({ rows: rows as Record<string, unknown>[], fields: result?.fields ?? [], rowCount: result?.rowCount ?? null, command: result?.command ?? '' }));
    });
  });
}
