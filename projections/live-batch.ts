import type { SqlClient, SqlExecutor, SqlValue } from '../src/db/sql-client.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { parkStatement, type Parking } from '../src/catch-up/parking.js';
import { applyIsolated, fastStatements, runStatements, workOf } from './apply.js';
import { inlined, type Statement } from './batch-writer.js';
import type { Projector } from './projector.js';
import { ASYNC_COMMIT, literal, sql } from './sql-text.js';

// How the read models consume a batch of the log: in one transaction with their checkpoints, parking what
// one of them cannot apply. The runner hands this to the catch-up engine as its consumer.

async function lockCheckpoints(tx: SqlExecutor): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ projector: string; position: string }>('select projector, position from proj_checkpoints for update');
  return new Map(rows.map((r) => [r.projector, r.position]));
}

function checkpointUpdate(names: readonly string[], position: string): string {
  if (names.length === 0) return 'select 1';
  return sql`update proj_checkpoints set position = greatest(position, ${position}) where projector in (` + names.map((n) => sql`${n}`).join(', ') + ')';
}

/** A statement and, where it has several parameters, its text with them written in. */
type Bindable = Statement & { inlined?: string };

/** A statement with its parameters written into the text (a batch writer's have one, JSON), for a multi-statement round trip. */
const inline = (statement: Bindable) => statement.inlined ?? inlined(statement);

/** The statements as parts of a multi-statement text: prepared where the database keeps plans (PGlite), else inlined. */
async function bound(db: SqlClient, statements: readonly Bindable[]): Promise<string[]> {
  const texts = statements.map(inline);
  const withParams = statements.flatMap((s, i) => (s.params.length > 0 ? [i] : []));
  if (!db.bound || withParams.length === 0) return texts;
  const prepared = await db.bound(withParams.map((i) => ({ text: statements[i]!.text, params: statements[i]!.params as SqlValue[] }))).catch(() => []);
  withParams.forEach((index, k) => {
    if (prepared[k]) texts[index] = prepared[k];
  });
  return texts;
}

/** Moves every checkpoint to `to` and checks they all were at `from`, in one statement that locks them first. */
function moveCheckpoints(names: string[], from: string, to: string): Bindable {
  const text = (n: string, f: string, t: string) =>
    `with moved as (update proj_checkpoints set position = ${t} where projector = any(${n}::text[]) and position = ${f} returning 1)
     select 1 / (count(*) = cardinality(${n}::text[]))::int from moved`;
  return { text: text('$1', '$2', '$3'), params: [names, from, to], inlined: text(literal(`{${names.map((n) => `"${n}"`).join(',')}}`), literal(from), literal(to)) };
}

/**
 * The common case in one round trip: every live projector's checkpoint is where the previous batch ended.
 * The statements run as one implicit transaction that first checks exactly that (dividing by zero
 * otherwise, which undoes everything), so any surprise (a rebuild's swap, another process, an event that
 * does not parse or apply) falls back to the careful path. Returns false when it did not apply.
 */
async function applyInOneTrip(db: SqlClient, projectors: readonly Projector[], batch: readonly RecordedEvent[], after: string | null) {
  if (after === null || projectors.length === 0) return false;
  const work = projectors.map((projector) => ({ projector, events: batch }));
  const statements = fastStatements(work);
  if (!statements) return false;
  const move = moveCheckpoints(projectors.map((p) => p.name), after, batch[batch.length - 1]!.position);
  const texts = await bound(db, [move, ...statements.slice(1)]);
  return db.exec(['set standard_conforming_strings = on', ASYNC_COMMIT, ...texts].join(';\n')).then(
    () => true,
    () => false,
  );
}

/** Applies a batch to the projectors still behind it, parks what cannot be applied, moves the checkpoints. */
export async function applyLive(db: SqlClient, projectors: readonly Projector[], batch: readonly RecordedEvent[], after: string | null): Promise<Parking[]> {
  if (await applyInOneTrip(db, projectors, batch, after)) return [];
  const last = batch[batch.length - 1]!.position;
  const names = projectors.map((p) => p.name);
  const attemptFast = await db
    .transaction(async (tx) => {
      const statements = fastStatements(workOf(projectors, batch, await lockCheckpoints(tx)));
      if (!statements) return false;
      await runStatements(tx, statements);
      await tx.exec(checkpointUpdate(names, last));
      return true;
    })
    .catch(() => false);
  if (attemptFast) return [];
  return db.transaction(async (tx) => {
    const parked = await applyIsolated(tx, workOf(projectors, batch, await lockCheckpoints(tx)));
    await runStatements(tx, parked.map(parkStatement));
    await tx.exec(checkpointUpdate(names, last));
    return parked;
  });
}
