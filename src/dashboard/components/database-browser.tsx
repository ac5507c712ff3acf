import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { focusOnMount } from '../focus-on-mount.js';
import { canWrite } from '../session.js';
import { cellText } from './cell-text.js';
import { ErrorNote } from './error-note.js';
import { confirmDialog } from './ui/dialog.js';
import { useLiveReload } from '../live-reload.js';

type Tables = GetAnswer<'/api/services/{serviceId}/database/tables'>['tables'];
type Page = GetAnswer<'/api/services/{serviceId}/database/rows'>;
const PAGE = 50;
/** The events after which the data itself may be different: a restore or an import ended. */
const DATA_CHANGES = new Set(['BackupRestored', 'BackupRestoreFailed', 'ImportSucceeded', 'ImportFailed']);

/** What the user typed, as the value to send: JSON when it reads as JSON (numbers, true, null, objects), else text. */
function typed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A database service's tables and a page of rows edited in place (statements: DatabaseConsole). */
export function DatabaseBrowser({ serviceId }: { serviceId: string }) {
  const tables = useSignal<Tables>([]);
  const table = useSignal<string | null>(null);
  const page = useSignal<Page | null>(null);
  const offset = useSignal(0);
  const editing = useSignal<{ row: number; column: string; text: string } | null>(null);
  const error = useSignal<string | null>(null);
  const path = { serviceId };

  const loadTables = async () => {
    const { data, error: failed } = await api.GET('/api/services/{serviceId}/database/tables', { params: { path, query: {} } });
    if (failed) return void (error.value = messageOf(failed));
    tables.value = data.tables;
    table.value ??= data.tables[0]?.id ?? null;
  };
  const loadRows = async () => {
    if (!table.value) return;
    const { data, error: failed } = await api.GET('/api/services/{serviceId}/database/rows', {
      params: { path, query: { table: table.value, limit: String(PAGE), offset: String(offset.value) } },
    });
    if (failed) return void (error.value = messageOf(failed));
    error.value = null;
    page.value = data;
  };
  /** The grid and the tables' counts are read together after any change, so they never disagree. */
  const reload = () => Promise.all([loadTables(), loadRows()]);
  useEffect(() => {
    void loadTables();
  }, [serviceId]);
  // A restore or an import that finishes (here or anywhere else) changes the data shown.
  useLiveReload((change) => change.serviceId === serviceId && DATA_CHANGES.has(change.type), reload);
  useEffect(() => {
    void loadRows();
  }, [table.value, offset.value]);

  const keyOf = (row: Record<string, unknown>) => Object.fromEntries((page.value?.columns ?? []).filter((c) => c.primary).map((c) => [c.name, row[c.name]]));
  // When an edit ends, the focus goes back to the cell it started from, not to the top of the page.
  const endEdit = () => {
    const edit = editing.value;
    editing.value = null;
    if (edit) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-cell="${edit.row}:${CSS.escape(edit.column)}"]`)?.focus());
  };
  const saveCell = async () => {
    const edit = editing.value!;
    const row = page.value!.rows[edit.row]!;
    const { error: failed } = await api.PATCH('/api/services/{serviceId}/database/rows', {
      params: { path },
      body: { table: table.value!, primaryKey: keyOf(row), values: { [edit.column]: typed(edit.text) } },
    });
    error.value = failed ? messageOf(failed) : null;
    await reload();
    endEdit();
  };
  const removeRow = async (row: Record<string, unknown>) => {
    const confirmed = await confirmDialog({
      title: `Delete the row ${JSON.stringify(keyOf(row))} of ${table.value}?`,
      body: 'It is deleted from the database at once. This cannot be undone.',
      confirmLabel: 'Delete row',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}/database/rows', { params: { path }, body: { table: table.value!, primaryKey: keyOf(row) } });
    error.value = failed ? messageOf(failed) : null;
    await reload();
  };
  const insertRow = async (form: HTMLFormElement) => {
    const values = Object.fromEntries([...new FormData(form)].filter(([, v]) => v !== '').map(([k, v]) => [k, typed(String(v))]));
    const { error: failed } = await api.POST('/api/services/{serviceId}/database/rows', { params: { path }, body: { table: table.value!, values } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) form.reset();
    await reload();
  };

  const p = page.value;
  const hasKey = Boolean(p?.columns.some((c) => c.primary));
  return (
    <section aria-labelledby="database">
      <h2 id="database">Data</h2>
      <ErrorNote message={error.value} />
      <label for="db-table">Table</label>
      <select
        id="db-table"
        value={table.value ?? ''}
        onChange={(e) => {
          table.value = e.currentTarget.value;
          offset.value = 0;
        }}
      >
        {tables.value.map((t) => (
          <option key={t.id} value={t.id}>
            {t.id} ({t.rowCount})
          </option>
        ))}
      </select>
      {p && (
        <>
          <table class="grid">
            <thead>
              <tr>
                {p.columns.map((c) => (
                  <th key={c.name} scope="col">
                    {c.name} <span class="type">{c.type}</span>
                  </th>
                ))}
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((row, r) => (
                <tr key={r}>
                  {p.columns.map((c) => {
                    const edit = editing.value;
                    return edit?.row === r && edit.column === c.name ? (
                      <td key={c.name}>
                        <form
                          onSubmit={(e) => {
                            e.preventDefault();
                            void saveCell();
                          }}
                        >
                          <label class="visually-hidden" for="cell-edit">
                            {c.name}
                          </label>
                          <input id="cell-edit" ref={focusOnMount} value={edit.text} onInput={(e) => (editing.value = { ...edit, text: e.currentTarget.value })} onKeyDown={(e) => e.key === 'Escape' && endEdit()} />
                        </form>
                      </td>
                    ) : (
                      <td key={c.name}>
                        {canWrite.value && hasKey && !c.primary ? (
                          <button type="button" class="cell" data-cell={`${r}:${c.name}`} onClick={() => (editing.value = { row: r, column: c.name, text: cellText(row[c.name]) })}>
                            {cellText(row[c.name]) || <span class="visually-hidden">empty; edit {c.name}</span>}
                          </button>
                        ) : (
                          cellText(row[c.name])
                        )}
                      </td>
                    );
                  })}
                  <td>
                    {canWrite.value && hasKey && (
                      <button type="button" class="danger" onClick={() => void removeRow(row)}>
                        Delete <span class="visually-hidden">row {r + 1}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            Rows {p.total === 0 ? 0 : p.offset + 1}–{p.offset + p.rows.length} of {p.total}{' '}
            <button type="button" disabled={offset.value === 0} onClick={() => (offset.value = Math.max(0, offset.value - PAGE))}>
              Previous
            </button>
            <button type="button" disabled={p.offset + p.rows.length >= p.total} onClick={() => (offset.value += PAGE)}>
              Next
            </button>
          </p>
          {canWrite.value && (
            <form
              class="filters"
              aria-label="Insert a row"
              onSubmit={(e) => {
                e.preventDefault();
                void insertRow(e.currentTarget);
              }}
            >
              {p.columns.map((c) => (
                <span key={c.name}>
                  <label for={`insert-${c.name}`}>{c.name}</label> <input id={`insert-${c.name}`} name={c.name} />
                </span>
              ))}
              <button type="submit">Insert</button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
