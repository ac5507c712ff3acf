export type Literal = string | number | boolean | null | undefined | readonly unknown[] | { readonly [k: string]: unknown };

/**
 * With standard_conforming_strings on (set by every batch, the default since Postgres 9.1) a string
 * literal needs only its quotes doubled. NUL never reaches here: the API refuses it.
 */
export const STANDARD_STRINGS = 'set local standard_conforming_strings = on';

/**
 * What every read-model transaction starts with. Its commit does not wait for the WAL to reach the disk:
 * a crash can lose only the last applies, and their checkpoints with them, so they are applied again from
 * the log, whose appends commit durably.
 */
export const ASYNC_COMMIT = `select set_config('synchronous_commit', 'off', true)`;
export const READ_MODEL_TRANSACTION = `${STANDARD_STRINGS}; ${ASYNC_COMMIT}`;

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Renders a value as a SQL literal; projectors inline values so a whole batch runs in one round trip. */
export function literal(value: Literal): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  return `${quote(JSON.stringify(value))}::jsonb`;
}

/** Tagged template: `sql\`update t set a = ${x}\`` with every value rendered by `literal`. */
export function sql(strings: TemplateStringsArray, ...values: Literal[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? literal(values[i]) : ''), '');
}
