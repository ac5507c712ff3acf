import pg from 'pg';

export type Literal = string | number | boolean | null | undefined | readonly unknown[] | { readonly [k: string]: unknown };

/** Renders a value as a SQL literal; projectors inline values so a whole batch runs in one round trip. */
export function literal(value: Literal): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  return `${pg.escapeLiteral(JSON.stringify(value))}::jsonb`;
}

/** Tagged template: `sql\`update t set a = ${x}\`` with every value rendered by `literal`. */
export function sql(strings: TemplateStringsArray, ...values: Literal[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? literal(values[i]) : ''), '');
}
