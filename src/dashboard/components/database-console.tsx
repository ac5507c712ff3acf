import { useSignal } from '@preact/signals';
import { api, messageOf } from '../api.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { cellText } from './cell-text.js';
import { TableScroll } from './ui/table-scroll.js';

type Result = { columns: { name: string }[]; rows: Record<string, unknown>[]; rowCount: number; truncated: boolean };

// Each engine's console takes its own language; SQL engines take statements.
const CONSOLE_LABEL: Record<string, string> = { redis: 'Redis command', mongodb: 'MongoDB command (JSON)' };

/** A statement (or an engine's command) run against the database, its answer as a table. */
export function DatabaseConsole({ serviceId, engine }: { serviceId: string; engine: string }) {
  const statement = useSignal('');
  const result = useSignal<Result | null>(null);
  const error = useSignal<string | null>(null);

  const run = async (event: Event) => {
    event.preventDefault();
    const { data, error: failed } = await api.POST('/api/services/{serviceId}/database/query', { params: { path: { serviceId } }, body: { sql: statement.value } });
    error.value = failed ? messageOf(failed) : null;
    result.value = data ?? null;
  };

  const r = result.value;
  return (
    <section aria-label="Console">
      <ErrorNote message={error.value} />
      {canWrite.value ? (
        <form onSubmit={run} class="console">
          <label for="db-statement">{CONSOLE_LABEL[engine] ?? 'Statement'}</label>
          <textarea id="db-statement" rows={3} value={statement.value} onInput={(e) => (statement.value = e.currentTarget.value)} />
          <button type="submit">Run</button>
        </form>
      ) : (
        <p>A read key cannot run statements.</p>
      )}
      {r && (
        <TableScroll label="Result of the statement">
          <table class="grid" aria-label="Result">
            <caption>
              {r.rowCount} row(s){r.truncated ? ', cut off' : ''}
            </caption>
            <thead>
              <tr>
                {r.columns.map((c) => (
                  <th key={c.name} scope="col">
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {r.rows.map((row, i) => (
                <tr key={i}>
                  {r.columns.map((c) => (
                    <td key={c.name}>{cellText(row[c.name])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
