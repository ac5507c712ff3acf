import { isDatabaseFault } from '../src/db/database-faults.js';
import type { SqlExecutor } from '../src/db/sql-client.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { BatchWriter, type Statement } from './batch-writer.js';
import type { Parking } from '../src/catch-up/parking.js';
import type { Projector } from './projector.js';
import { READ_MODEL_TRANSACTION } from './sql-text.js';

/** A projector's statements for some events. Pure; throws when an event does not parse. */
function statementsOf(projector: Projector, events: readonly RecordedEvent[]): Statement[] {
  const out = new BatchWriter();
  projector.applyBatch(events, out);
  return out.statements();
}

export async function runStatements(tx: SqlExecutor, statements: readonly Statement[]) {
  for (const { text, params } of statements) {
    if (params.length) await tx.query(text, params as string[]);
    else await tx.exec(text);
  }
}

/** What each projector still has to apply of a batch: the events after its checkpoint. */
export type Work = readonly { projector: Projector; events: readonly RecordedEvent[] }[];

export function workOf(projectors: readonly Projector[], batch: readonly RecordedEvent[], checkpoints: ReadonlyMap<string, string>): Work {
  return projectors
    .map((projector) => {
      const checkpoint = checkpoints.get(projector.name) ?? '';
      return { projector, events: checkpoint === '' ? batch : batch.filter((e) => e.position > checkpoint) };
    })
    .filter((w) => w.events.length > 0);
}

/**
 * Every projector's statements in one list, or null when one of them cannot even build its statements
 * (an event that does not parse): then only the isolating path can tell which event is at fault.
 */
export function fastStatements(work: Work): Statement[] | null {
  const all: Statement[] = [{ text: READ_MODEL_TRANSACTION, params: [] }];
  for (const { projector, events } of work) {
    try {
      all.push(...statementsOf(projector, events));
    } catch {
      return null;
    }
  }
  return all;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The database or the connection failed while a projector applied events: nothing is parked, the batch is
 * tried again later. `projector` is the one that met it, when known.
 */
export class ProjectorFaultError extends Error {
  constructor(
    readonly projector: string | null,
    readonly fault: unknown,
  ) {
    super(message(fault));
  }
}

/**
 * Runs `fn` inside a savepoint; when the statements fail on their own the savepoint is rolled back and the
 * error returned. A fault of the database or the connection is thrown: the transaction is of no more use.
 */
async function attempt(tx: SqlExecutor, projector: string, fn: () => Statement[]): Promise<unknown> {
  await tx.exec('savepoint projector_attempt');
  try {
    await runStatements(tx, fn());
    await tx.exec('release savepoint projector_attempt');
    return null;
  } catch (error) {
    if (isDatabaseFault(error)) throw new ProjectorFaultError(projector, error);
    await tx.exec('rollback to savepoint projector_attempt').catch((rollback: unknown) => {
      throw new ProjectorFaultError(projector, rollback);
    });
    return error ?? new Error('unknown error');
  }
}

/** An event is blamed only when the connection is known to be healthy right after it failed. */
async function connectionAnswers(tx: SqlExecutor, projector: string) {
  await tx.query('select 1').catch((error: unknown) => {
    throw new ProjectorFaultError(projector, error);
  });
}

/**
 * The slow path, after the fast one failed: each projector in its own savepoint, and one that fails goes
 * event by event, parking an event that fails alone on a healthy connection. The other projectors never
 * wait for it. A database fault parks nothing: it is thrown (ProjectorFaultError) and the batch retried.
 */
export async function applyIsolated(tx: SqlExecutor, work: Work): Promise<Parking[]> {
  await tx.exec(READ_MODEL_TRANSACTION);
  const parked: Parking[] = [];
  for (const { projector, events } of work) {
    if ((await attempt(tx, projector.name, () => statementsOf(projector, events))) === null) continue;
    for (const event of events) {
      const error = await attempt(tx, projector.name, () => statementsOf(projector, [event]));
      if (error === null) continue;
      await connectionAnswers(tx, projector.name);
      parked.push({ projector: projector.name, event, error: message(error), attempts: 1 });
    }
  }
  return parked;
}

/** Applies one event to one projector now (an operator's retry); throws what the projector throws. */
export async function applyOne(tx: SqlExecutor, projector: Projector, event: RecordedEvent) {
  await tx.exec(READ_MODEL_TRANSACTION);
  await runStatements(tx, statementsOf(projector, [event]));
}
