import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { PGLITE_CONFIG } from './pglite-config.js';
import { serializeError, type ThreadReply, type ThreadRequest } from './pglite-messages.js';
import { PreparedStatements } from './pglite-statements.js';

// PGlite on a thread of its own: Postgres's work runs beside the server's HTTP and JavaScript instead of
// taking turns with them on one thread. The server's thread talks to it through pglite-thread-handle.ts.
const port = parentPort!;
const post = (reply: ThreadReply) => port.postMessage(reply);

class Rollback extends Error {}

interface Open {
  tx: Transaction;
  end: (commit: boolean) => void;
  done: Promise<unknown>;
}

const db = await PGlite.create((workerData as { dataDir?: string }).dataDir, { postgresqlconf: PGLITE_CONFIG }).catch((error: unknown) => {
  post({ failed: serializeError(error) });
  throw error;
});
const statements = new PreparedStatements(db);
const open = new Map<number, Open>();
const unlisten = new Map<string, () => Promise<void>>();

const within = (tx: number) => {
  const found = open.get(tx);
  if (!found) throw new Error(`no open transaction ${tx}`);
  return found.tx;
};

/** Opens a transaction that lasts until its `end` request: PGlite commits when the callback returns, rolls back when it throws. */
function begin(tx: number): Promise<void> {
  return new Promise((entered, failed) => {
    const done = db.transaction(async (handle) => {
      const commit = await new Promise<boolean>((end) => {
        open.set(tx, { tx: handle, end, done });
        entered();
      });
      if (!commit) throw new Rollback();
    });
    done.catch(failed);
  });
}

async function end(tx: number, commit: boolean): Promise<void> {
  const found = open.get(tx);
  if (!found) return;
  open.delete(tx);
  found.end(commit);
  await found.done.catch((error: unknown) => {
    if (!(error instanceof Rollback)) throw error;
  });
}

async function handle(request: ThreadRequest): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      if (request.tx === null) return statements.query(request.text, request.params);
      const result = await within(request.tx).query(request.text, request.params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    }
    case 'exec':
      await (request.tx === null ? db : within(request.tx)).exec(request.text);
      return null;
    case 'bound':
      return Promise.all(request.statements.map(({ text, params }) => statements.bound(text, params).catch(() => null)));
    case 'begin':
      return begin(request.tx);
    case 'end':
      return end(request.tx, request.commit);
    case 'listen':
      if (!unlisten.has(request.channel)) unlisten.set(request.channel, await db.listen(request.channel, () => post({ notify: request.channel })));
      return null;
    case 'unlisten':
      await unlisten.get(request.channel)?.();
      unlisten.delete(request.channel);
      return null;
    case 'close':
      await db.close();
      return null;
  }
}

port.on('message', (request: ThreadRequest) => {
  handle(request).then(
    (result) => post({ id: request.id, result }),
    (error: unknown) => post({ id: request.id, error: serializeError(error) }),
  );
});
post({ ready: true });
