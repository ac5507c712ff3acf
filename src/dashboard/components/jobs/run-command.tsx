import { useSignal } from '@preact/signals';
import { api } from '../../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import { RunLog } from './run-log.js';
import type { JobRun } from './job-view.js';

const fieldOf = fieldsByPath({ command: 'command' });

/**
 * A one-off command (`heroku run`): run in a container of the service's current release, its output shown live
 * below the field as it comes, then its exit code. The command runs with `sh -c`, as the API runs a string.
 */
export function RunCommand({ serviceId, runs, started, cancel }: { serviceId: string; runs: JobRun[]; started: () => void; cancel: (id: string) => void }) {
  const command = useSignal('');
  const runId = useSignal<string | null>(null);
  const lastCommand = useSignal('');
  const errors = useSignal(NO_ERRORS);
  const busy = useSignal(false);

  const run = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    busy.value = true;
    const { data, error } = await api.POST('/api/services/{serviceId}/runs', { params: { path: { serviceId } }, body: { command: command.value } });
    busy.value = false;
    errors.value = error ? formErrors(error, fieldOf) : NO_ERRORS;
    if (error) return focusFirstInvalid(form);
    runId.value = data.run.id;
    lastCommand.value = command.value.trim();
    started();
  };

  return (
    <section aria-labelledby="run-a-command" class="run-command">
      <h2 id="run-a-command">Run a command</h2>
      <p class="help">Runs once in a new container of the current release, with its variables and limits, beside the service; nothing is published.</p>
      <ErrorNote message={errors.value.general} />
      <form class="inline run-command-form" aria-label="Run a command" onSubmit={run}>
        <label for="run-command">Command</label>
        <input
          id="run-command"
          class="mono"
          autocomplete="off"
          spellcheck={false}
          placeholder="npm run migrate"
          value={command.value}
          onInput={(e) => (command.value = e.currentTarget.value)}
          {...invalidProps('run-command', errors.value.fields.command)}
        />
        <button type="submit" disabled={busy.value}>
          Run
        </button>
      </form>
      <FieldError id="run-command" message={errors.value.fields.command} />
      {runId.value && <RunLog runId={runId.value} run={runs.find((r) => r.id === runId.value) ?? null} title={`$ ${lastCommand.value}`} cancel={cancel} />}
    </section>
  );
}
