import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
import { assertExpectedRevision } from './expected-revision.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './port.js';
import { decodePosition, encodePosition } from './position.js';
import { EVENTS_CHANNEL, EVENT_STORE_DDL } from './postgres-schema.js';

interface EventRow {
  event_id: string;
  stream_id: string;
  revision: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: NewEvent['metadata'];
  recorded_at: Date | string;
  transaction_id: string;
  global_position: string;
}

// Casts keep bigint/xid8 exact; ORDER BY must name e.* columns, not these text aliases.
const COLUMNS = `e.event_id::text as event_id, e.stream_id, e.revision::text as revision, e.type, e.schema_version, e.data,
  e.metadata, e.recorded_at, e.transaction_id::text as transaction_id, e.global_position::text as global_position`;

const ANCHOR = 'exists (select 1 from es_events a where a.global_position = $2::bigint and a.transaction_id = $1::text::xid8)';

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: encodePosition(row.transaction_id, row.global_position),
    recordedAt: new Date(row.recorded_at).toISOString(),
  };
}

async function findDuplicates(tx: SqlExecutor, streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
  const { rows } = await tx.query<EventRow>(
    `select ${COLUMNS} from es_events e where e.event_id = any($1::uuid[]) order by e.revision`,
    [events.map((e) => e.id)],
  );
  if (rows.length === 0) return null;
  const last = rows[rows.length - 1]!;
  if (rows.length === events.length && rows.every((r) => r.stream_id === streamId)) {
    return { nextRevision: Number(last.revision), position: encodePosition(last.transaction_id, last.global_position) };
  }
  throw new WrongExpectedRevisionError(streamId, 'any', Number(last.revision));
}

// Namespaces the stream locks among the database's advisory locks.
const STREAM_LOCK_CLASS = 0x534c5057;

/**
 * Serialises appends to one stream, also while it does not exist yet (there is no row to lock then), so
 * that an append sees every event an earlier one committed, its own duplicates included.
 */
async function lockStreamRevision(tx: SqlExecutor, streamId: string): Promise<number> {
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [STREAM_LOCK_CLASS, streamId]);
  const { rows } = await tx.query<{ revision: string }>(
    'select revision::text from es_streams where stream_id = $1 for update',
    [streamId],
  );
  return rows[0] ? Number(rows[0].revision) : -1;
}

async function storeStreamRevision(tx: SqlExecutor, streamId: string, current: number, next: number): Promise<void> {
  if (current < 0) {
    // A concurrent creator of the same stream wins; this append then has the wrong expectation.
    const inserted = await tx.query(
      'insert into es_streams (stream_id, revision) values ($1, $2) on conflict (stream_id) do nothing',
      [streamId, next],
    );
    if (inserted.rowCount !== 1) throw new WrongExpectedRevisionError(streamId, 'no_stream', 0);
  } else {
    await tx.query('update es_streams set revision = $2 where stream_id = $1', [streamId, next]);
  }
}

async function insertEvents(tx: SqlExecutor, streamId: string, events: NewEvent[], first: number) {
  const params: unknown[] = [];
  const tuples = events.map((event, i) => {
    const base = params.length;
    params.push(event.id, streamId, first + i, event.type, event.schemaVersion, JSON.stringify(event.data), JSON.stringify(event.metadata));
    return `($${base + 1}::uuid, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}::jsonb, $${base + 7}::jsonb)`;
  });
  const { rows } = await tx.query<{ transaction_id: string; global_position: string }>(
    `insert into es_events (event_id, stream_id, revision, type, schema_version, data, metadata)
     values ${tuples.join(', ')}
     returning transaction_id::text, global_position::text`,
    params as never[],
  );
  const last = rows.reduce((a, b) => (BigInt(a.global_position) > BigInt(b.global_position) ? a : b));
  return encodePosition(last.transaction_id, last.global_position);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

export async function createPostgresEventStore(sql: SqlClient): Promise<EventStore> {
  await sql.exec(EVENT_STORE_DDL);

  async function append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('append needs at least one event');
    try {
      return await sql.transaction(async (tx) => {
        const current = await lockStreamRevision(tx, streamId);
        const duplicate = await findDuplicates(tx, streamId, events);
        if (duplicate) return duplicate;
        assertExpectedRevision(streamId, expected, current);
        const next = current + events.length;
        await storeStreamRevision(tx, streamId, current, next);
        const position = await insertEvents(tx, streamId, events, current + 1);
        await tx.query(`select pg_notify('${EVENTS_CHANNEL}', '')`);
        return { nextRevision: next, position };
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // The ids went in at the same moment through a writer that takes no stream lock (raw SQL, another
      // tool): if they are all in this stream now, that append is this one's result.
      const duplicate = await sql.transaction((tx) => findDuplicates(tx, streamId, events));
      if (duplicate) return duplicate;
      throw new WrongExpectedRevisionError(streamId, expected, -1);
    }
  }

  async function readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const { rows } = await sql.query<EventRow>(
      `select ${COLUMNS} from es_events e
       where e.stream_id = $1 and e.revision ${backwards ? '<=' : '>='} $2
       order by e.revision ${backwards ? 'desc' : 'asc'} limit $3`,
      [streamId, from, limit],
    );
    return rows.map(toRecorded);
  }

  async function readAll({ after, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const [tx, gp] = after ? decodePosition(after) : [0n, 0n];
    const params = [tx.toString(), gp.toString(), maxCount];
    // Only transactions below the snapshot horizon are known to be finished: later ones may still commit
    // with smaller global positions, and reading past them would skip those events for good.
    // Each row also says whether `after` is an event of this store: a foreign position is an error, not "the end".
    const { rows } = await sql.query<EventRow & { anchored: boolean }>(
      `select ${COLUMNS}, ${after ? ANCHOR : 'true'} as anchored from es_events e
       where e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         and (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
       order by e.transaction_id, e.global_position
       limit $3`,
      params,
    );
    const anchored = rows.length > 0 ? rows[0]!.anchored : !after || (await sql.query(`select ${ANCHOR} as anchored`, params.slice(0, 2))).rows[0]!.anchored;
    if (!anchored) throw new RangeError(`position ${after} is not in this store`);
    return rows.map(toRecorded);
  }

  async function countAll(): Promise<number> {
    const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from es_events');
    return rows[0]!.n;
  }

  return {
    kind: 'postgres',
    append,
    readStream,
    readAll,
    countAll,
    watch: (onWake) => sql.listen(EVENTS_CHANNEL, onWake),
    close: async () => undefined,
  };
}
