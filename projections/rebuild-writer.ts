import type { SqlClient } from '../src/db/sql-client.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { applyIsolated, fastStatements, workOf, type Work } from './apply.js';
import { inlined } from './batch-writer.js';
import type { Parking } from '../src/catch-up/parking.js';
import type { Projector } from './projector.js';
import { ASYNC_COMMIT, literal } from './sql-text.js';

/**
 * Connections a rebuild writes on at once. PGlite has one; on a Postgres server the read models are built
 * side by side, each group on a connection of its own (a projector writes only its own tables).
 */
const lanesOf = (db: SqlClient) => (db.kind === 'pglite' ? 1 : 2);

/** The work of one lane for one batch, its statements built before the lane is free to run them. */
interface Prepared {
  work: Work;
  /** One multi-statement text for one round trip, or null when a projector cannot build its statements. */
  text: string | null;
}

/**
 * Writes a rebuild's batches into the schema `schema`, in the log's order for each projector. While the
 * database applies one batch, the next is read and its statements built, so the reading, the JavaScript and
 * the database work side by side; at most two batches are in flight. A batch goes in one round trip; when
 * that fails, it is applied again projector by projector and event by event, parking what cannot be applied.
 */
export class RebuildWriter {
  private readonly lanes: Projector[][] = [];
  private tails: Promise<unknown>[] = [];
  private previous: Promise<unknown> = Promise.resolve();
  private failure: { error: unknown } | null = null;
  readonly parked: Parking[] = [];

  constructor(
    private readonly db: SqlClient,
    private readonly projectors: readonly Projector[],
    private readonly schema: string,
    /** Called once every projector has a batch, in the log's order. */
    private readonly onWritten: (batch: readonly RecordedEvent[]) => void,
  ) {}

  /** Hands a batch over; returns once the one before the previous is written, so reading stays at most two batches ahead. */
  async write(batch: readonly RecordedEvent[]): Promise<void> {
    this.throwIfFailed();
    if (this.lanes.length === 0) this.assignLanes(batch);
    const prepared = this.lanes.map((lane) => this.prepare(lane, batch));
    this.tails = this.tails.map((tail, i) => tail.then(() => this.run(prepared[i]!)));
    const before = this.previous;
    const all = Promise.all([before, ...this.tails]).then(() => this.onWritten(batch));
    all.catch((error: unknown) => (this.failure ??= { error }));
    this.previous = all;
    await before.catch(() => undefined);
    this.throwIfFailed();
  }

  /** Resolves once every batch handed over is written. */
  async drain(): Promise<void> {
    await this.previous.catch(() => undefined);
    this.throwIfFailed();
  }

  private throwIfFailed() {
    if (this.failure) throw this.failure.error;
  }

  /**
   * Lanes balanced by how much each projector writes for the first batch (its statements' length), heaviest
   * first into the lightest lane: the audit log, which takes every event, gets a lane nearly to itself.
   */
  private assignLanes(batch: readonly RecordedEvent[]) {
    const count = Math.min(lanesOf(this.db), this.projectors.length);
    const weights = this.projectors.map((p) => ({ p, weight: this.prepare([p], batch).text?.length ?? 0 }));
    weights.sort((a, b) => b.weight - a.weight);
    const load = Array.from({ length: count }, () => 0);
    for (let i = 0; i < count; i++) this.lanes.push([]);
    for (const { p, weight } of weights) {
      const lightest = load.indexOf(Math.min(...load));
      this.lanes[lightest]!.push(p);
      load[lightest]! += weight;
    }
    // Each lane keeps the projectors in their given order.
    for (const lane of this.lanes) lane.sort((a, b) => this.projectors.indexOf(a) - this.projectors.indexOf(b));
    this.tails = this.lanes.map(() => Promise.resolve());
  }

  private get searchPath() {
    return `"${this.schema.replaceAll('"', '""')}"`;
  }

  private prepare(lane: readonly Projector[], batch: readonly RecordedEvent[]): Prepared {
    const work = workOf(lane, batch, new Map());
    const statements = fastStatements(work);
    if (!statements) return { work, text: null };
    // One implicit transaction: the settings are local to it, and any failure undoes all of it.
    const head = ['set standard_conforming_strings = on', ASYNC_COMMIT, `select set_config('search_path', ${literal(this.searchPath)}, true)`];
    return { work, text: [...head, ...statements.slice(1).map(inlined)].join(';\n') };
  }

  private async run({ work, text }: Prepared): Promise<void> {
    if (work.length === 0) return;
    if (text !== null && (await this.db.exec(text).then(() => true, () => false))) return;
    const parked = await this.db.transaction(async (tx) => {
      await tx.query(`select set_config('search_path', $1, true)`, [this.searchPath]);
      return applyIsolated(tx, work);
    });
    this.parked.push(...parked);
  }
}
