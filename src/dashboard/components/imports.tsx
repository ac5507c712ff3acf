import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';

type DataImport = GetAnswer<'/api/services/{serviceId}/database/imports'>['imports'][number];
export type ImportSource = DataImport['source'];

const EXAMPLE: Record<ImportSource, string> = {
  'postgres-url': 'postgres://user:password@host:5432/database',
  'redis-url': 'redis://:password@host:6379/0',
};
const fieldOf = fieldsByPath({ sourceUrl: 'sourceUrl' });

/** Copies another database into this one from a URL; the URL (and its password) is sent once and never shown again. */
export function Imports({ serviceId, source }: { serviceId: string; source: ImportSource }) {
  const imports = useSignal<DataImport[]>([]);
  const errors = useSignal(NO_ERRORS);
  const path = { params: { path: { serviceId } } };
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/services/{serviceId}/database/imports', path);
    if (failed) return void (errors.value = { general: messageOf(failed), fields: {} });
    imports.value = data.imports;
  };
  useEffect(() => {
    void load();
    const timer = setInterval(() => imports.value.some((i) => i.status === 'running') && void load(), 2000);
    return () => clearInterval(timer);
  }, [serviceId]);

  const start = async (form: HTMLFormElement) => {
    const sourceUrl = String(new FormData(form).get('sourceUrl') ?? '').trim();
    const confirmed = await confirmDialog({
      title: `Import from ${sourceUrl.replace(/\/\/[^@/]*@/, '//')} into this database?`,
      body: 'What the source holds is copied in: data with the same names here is replaced.',
      confirmLabel: 'Import',
      danger: true,
    });
    if (!confirmed) return;
    const request = { ...path, body: { sourceUrl } };
    const { error: failed } =
      source === 'postgres-url'
        ? await api.POST('/api/services/{serviceId}/database/import/postgres-url', request)
        : await api.POST('/api/services/{serviceId}/database/import/redis-url', request);
    errors.value = failed ? formErrors(failed, fieldOf) : NO_ERRORS;
    if (failed) focusFirstInvalid(form);
    else form.reset();
    await load();
  };

  return (
    <section aria-labelledby="imports">
      <h2 id="imports">Imports</h2>
      <ErrorNote message={errors.value.general} />
      {canWrite.value && (
        <form
          class="settings"
          aria-label="New import"
          onSubmit={(e) => {
            e.preventDefault();
            void start(e.currentTarget);
          }}
        >
          <label for="import-url">Source URL</label>
          <input id="import-url" name="sourceUrl" type="password" required autocomplete="off" placeholder={EXAMPLE[source]} {...invalidProps('import-url', errors.value.fields.sourceUrl)} />
          <FieldError id="import-url" message={errors.value.fields.sourceUrl} />
          <button type="submit">Import</button>
        </form>
      )}
      {imports.value.length > 0 && (
        <table>
          <TableHead columns={['Started', 'From', 'Status']} />
          <tbody>
            {imports.value.map((i) => (
              <tr key={i.id}>
                <td>{i.startedAt.replace('T', ' ').slice(0, 19)}</td>
                <td>
                  <code>{i.sourceLabel}</code>
                </td>
                <td class={`status status-${i.status}`}>
                  {i.status}
                  {i.error ? ` — ${i.error}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
