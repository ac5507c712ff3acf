import type { SqlClient, SqlExecutor } from '../db/sql-client.js';
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
import { recordedFromRow, type EventRow as StoredEventRow } from './event-row.js';
import { decodePosition, encodePosition } from './position.js';
import { AppendBatcher, type AppendRequest, type BatchOutcome } from './append-batcher.js';
import { READ_HORIZON } from './postgres-horizon.js';
import { APPEND_BATCH_FUNCTION_DDL, APPEND_FUNCTION_DDL, EVENTS_CHANNEL, EVENT_STORE_DDL } from './postgres-schema.js';

interface EventRow extends StoredEventRow {
  transaction_id: string;
  global_position: string;
}

// Casts keep bigint/xid8 exact; ORDER BY must name e.* columns, not these text aliases.
const COLUMNS = `e.event_id::text as event_id, e.stream_id, e.revision::text as revision, e.type, e.schema_version, e.data,
  e.metadata, e.recorded_at, e.transaction_id::text as transaction_id, e.global_position::text as global_position`;

const ANCHOR = 'exists (select 1 from es_events a where a.global_position = $2::bigint and a.transaction_id = $1::text::xid8)';

function toRecorded(row: EventRow): RecordedEvent {
  return recordedFromRow(row, encodePosition(row.transaction_id, row.global_position));
}

async function findDuplicates(tx: SqlExecutor, streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
  const { rows } = await tx.query<EventRow>(
    `select ${COLUMNS} from es_events e where e.event_id = any($1::uuid[]) order by e.revision`,
    [events.map((e) => e.id)],
  );
  if (rows.length === 0) return null;
  const last = rows[rows.length - 1]!;
  if (rows.length === events.length && rows.every((r) => r.stream_id === streamId)) {
    return { nextRevision: Number(last.revision), position: encodePosition(last.transaction_id, last.global_position), duplicate: true };
  }
  throw new WrongExpectedRevisionError(streamId, 'any', Number(last.revision));
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

type AppendOutcome = { outcome: 'appended' | 'duplicate' | 'reused' | 'wrong'; next_revision: string; tx: string | null; gp: string | null };

/** What `es_append` said, as the port has it: the result, or the refusal to throw. */
function resultOf({ streamId, expected }: AppendRequest, row: AppendOutcome): AppendResult | WrongExpectedRevisionError {
  const revision = Number(row.next_revision);
  if (row.outcome === 'wrong') return new WrongExpectedRevisionError(streamId, expected, revision < 0 ? 'no_stream' : revision);
  if (row.outcome === 'reused') return new WrongExpectedRevisionError(streamId, 'any', revision);
  return { nextRevision: revision, position: encodePosition(row.tx!, row.gp!), ...(row.outcome === 'duplicate' ? { duplicate: true } : {}) };
}

/** `es_append`'s expectation as text: a revision, a tip as `<revision>@<event id>`, or a word. */
const expectedText = (expected: ExpectedRevision) => (typeof expected === 'object' ? `${expected.revision}@${expected.lastEventId}` : String(expected));

const eventsJson = (events: NewEvent[]) => events.map(({ id, type, schemaVersion, data, metadata }) => ({ id, type, schemaVersion, data, metadata }));

export async function createPostgresEventStore(sql: SqlClient): Promise<EventStore> {
  await sql.exec(EVENT_STORE_DDL + APPEND_FUNCTION_DDL + APPEND_BATCH_FUNCTION_DDL);

  async function appendOne(request: AppendRequest): Promise<AppendResult> {
    const { streamId, events, expected } = request;
    try {
      const { rows } = await sql.query<AppendOutcome>('select outcome, next_revision::text as next_revision, tx, gp from es_append($1, $2, $3::jsonb)', [
        streamId,
        expectedText(expected),
        JSON.stringify(eventsJson(events)),
      ]);
      const result = resultOf(request, rows[0]!);
      if (result instanceof Error) throw result;
      return result;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // The ids went in at the same moment through a writer that takes no stream lock (raw SQL, another
      // tool): if they are all in this stream now, that append is this one's result.
      const duplicate = await sql.transaction((tx) => findDuplicates(tx, streamId, events));
      if (duplicate) return duplicate;
      throw new WrongExpectedRevisionError(streamId, expected, -1);
    }
  }

  async function appendMany(requests: readonly AppendRequest[]): Promise<BatchOutcome> {
    const appends = requests.map(({ streamId, events, expected }) => ({ stream: streamId, expected: expectedText(expected), events: eventsJson(events) }));
    const { rows } = await sql.query<AppendOutcome & { i: number }>(
      'select i, outcome, next_revision::text as next_revision, tx, gp from es_append_batch($1::jsonb) order by i',
      [JSON.stringify(appends)],
    );
    return requests.map((request, i) => resultOf(request, rows[i]!));
  }

  const batcher = new AppendBatcher(appendOne, appendMany);

  function append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new RangeError('append needs at least one event'));
    // Something happened: a sleeping store stays awake for what follows (projections, process managers).
    sql.touch();
    return batcher.append({ streamId, events, expected });
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
    // Only transactions below the read horizon are known to be finished: later ones may still commit
    // with smaller global positions, and reading past them would skip those events for good.
    // Each row also says whether `after` is an event of this store: a foreign position is an error, not "the end".
    const { rows } = await sql.query<EventRow & { anchored: boolean }>(
      `select ${COLUMNS}, ${after ? ANCHOR : 'true'} as anchored from es_events e
       where e.transaction_id < ${READ_HORIZON}
         and (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
       order by e.transaction_id, e.global_position
       limit $3`,
      params,
    );
    const anchored = rows.length > 0 ? rows[0]!.anchored : !after || (await sql.query(`select ${ANCHOR} as anchored`, params.slice(0, 2))).rows[0]!.anchored;
    if (!anchored) throw new RangeError(`position ${after} is not in this store`);
    return rows.map(toRecorded);
  }

  async function findEvent(eventId: string): Promise<RecordedEvent | null> {
    const { rows } = await sql.query<EventRow>(`select ${COLUMNS} from es_events e where e.event_id = $1::uuid`, [eventId]);
    return rows[0] ? toRecorded(rows[0]) : null;
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
    findEvent,
    countAll,
    watch: (onWake) => sql.listen(EVENTS_CHANNEL, onWake),
    close: async () => undefined,
  };
}
