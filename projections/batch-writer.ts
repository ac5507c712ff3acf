import { literal, type Literal } from './sql-text.js';

export interface Upsert {
  table: string;
  /** Column name to value; values travel as JSON, so Postgres reads them with the columns' own types. */
  row: Record<string, Literal>;
  /** Conflict target columns. */
  key: readonly string[];
  /** Columns to overwrite when the key exists; empty: do nothing. */
  update: readonly string[];
}

export interface Statement {
  text: string;
  params: unknown[];
}

type Op = ({ kind: 'upsert' } & Upsert) | { kind: 'sql'; text: string; params: unknown[] };

/**
 * Collects a batch's writes in order. Consecutive upserts of the same shape become one INSERT over a
 * JSON array of rows (a key may appear once per statement, so a repeated key starts a new one); any
 * other statement is a barrier, so the result is exactly that of running the writes one by one.
 */
export class BatchWriter {
  private readonly ops: Op[] = [];

  upsert(upsert: Upsert): void {
    this.ops.push({ kind: 'upsert', ...upsert });
  }

  /** Any statement; with parameters it runs on its own (a JSON text as `$1`, so it can stay prepared). */
  sql(text: string, params: unknown[] = []): void {
    this.ops.push({ kind: 'sql', text, params });
  }

  /** Sets `assignments` (SQL text, its values written in with `sql`) on the row of `table` with this id. */
  updateById(table: string, id: string, assignments: string): void {
    this.sql(`update ${table} set ${assignments} where id = ${literal(id)}`);
  }

  /** Deletes the rows of `table` whose `column` names `owner` (the rows of a deleted service, of a removed record…). */
  deleteOwnedBy(table: string, column: string, owner: string | number): void {
    this.sql(`delete from ${table} where ${column} = ${literal(owner)}`);
  }

  statements(): Statement[] {
    const out: Statement[] = [];
    let barrier: string[] = [];
    let group: (Op & { kind: 'upsert' })[] = [];
    let shape = '';
    let keys = new Set<string>();
    const flushGroup = () => {
      if (group.length) out.push(insertStatement(group));
      group = [];
      keys = new Set();
    };
    const flushBarrier = () => {
      if (barrier.length) out.push({ text: barrier.join(';\n'), params: [] });
      barrier = [];
    };
    for (const op of this.ops) {
      if (op.kind === 'sql') {
        flushGroup();
        if (op.params.length === 0) barrier.push(op.text);
        else {
          flushBarrier();
          out.push({ text: op.text, params: op.params });
        }
        continue;
      }
      flushBarrier();
      const opShape = `${op.table}|${Object.keys(op.row).join(',')}|${op.key.join(',')}|${op.update.join(',')}`;
      const key = JSON.stringify(op.key.map((k) => op.row[k]));
      if (opShape !== shape || keys.has(key)) flushGroup();
      shape = opShape;
      keys.add(key);
      group.push(op);
    }
    flushGroup();
    flushBarrier();
    return out;
  }
}

function insertStatement(group: ({ kind: 'upsert' } & Upsert)[]): Statement {
  const { table, row, key, update } = group[0]!;
  const columns = Object.keys(row).join(', ');
  const onConflict = update.length ? `do update set ${update.map((c) => `${c} = excluded.${c}`).join(', ')}` : 'do nothing';
  return {
    text: `insert into ${table} (${columns}) select ${columns} from json_populate_recordset(null::${table}, $1::json)
           on conflict (${key.join(', ')}) ${onConflict}`,
    params: [JSON.stringify(group.map((op) => op.row))],
  };
}

/**
 * The statement with its parameter (a batch writer's statements have at most one, a JSON text) written in,
 * to run as one part of a multi-statement text. A function replacer: a replacement string would read
 * `$&`, `$'` and `$$` inside the value as patterns.
 */
export function inlined({ text, params }: Statement): string {
  return params.length === 0 ? text : text.replace('$1', () => literal(String(params[0])));
}
