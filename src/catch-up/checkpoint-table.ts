import type { SqlClient } from '../db/sql-client.js';

const DDL = `
create table if not exists pm_checkpoints (
  name text primary key,
  position text collate "C" not null default ''
);`;

/** Checkpoints are written at most this often (and at stop): after a crash, handlers see at most this much again. */
const SAVE_EVERY_MS = 500;

/**
 * The checkpoints of followers whose consumer does not store its own in the transaction it applies (the
 * process managers: their effects are outside the database). A moved checkpoint is written a little later,
 * all that moved in one statement, and never goes back.
 */
export class CheckpointTable {
  private unsaved = new Map<string, string>();
  private saving: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: SqlClient,
    private readonly onSaveError: (error: unknown) => void,
  ) {}

  /** Every stored checkpoint by name ('' for one stored before anything was handled). */
  async load(): Promise<Map<string, string>> {
    await this.db.exec(DDL);
    const { rows } = await this.db.query<{ name: string; position: string }>('select name, position from pm_checkpoints');
    return new Map(rows.map((r) => [r.name, r.position]));
  }

  moved(name: string, position: string | null): void {
    this.unsaved.set(name, position ?? '');
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.save().catch(this.onSaveError);
    }, SAVE_EVERY_MS);
  }

  /** Writes every checkpoint that moved, in one statement. */
  save(): Promise<void> {
    this.saving = this.saving
      .catch(() => undefined)
      .then(async () => {
        const rows = [...this.unsaved].map(([name, position]) => ({ name, position }));
        this.unsaved.clear();
        if (rows.length === 0) return;
        await this.db.query(
          `insert into pm_checkpoints (name, position) select name, position from json_populate_recordset(null::pm_checkpoints, $1::json)
           on conflict (name) do update set position = greatest(pm_checkpoints.position, excluded.position)`,
          [JSON.stringify(rows)],
        );
      });
    return this.saving;
  }

  /** The last write: nothing is left waiting for the timer. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.save();
  }
}
