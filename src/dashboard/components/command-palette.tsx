import { signal, useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { useEffect, useId, useRef } from 'preact/hooks';
import { api, messageOf } from '../api.js';
import { matchEntries, paletteEntries, type PaletteEntry } from '../palette-entries.js';
import { projects } from '../projects-store.js';
import { canWrite } from '../session.js';
import { confirmDialog } from './ui/dialog.js';
import { toast } from './ui/toast.js';
import '../styles/palette.css';

/** Whether the palette is open: Ctrl/⌘-K or the top bar's button opens it. */
export const paletteOpen = signal(false);

/** Runs a service action through the API; the deployment it queued is where the page goes next. */
async function runAction(run: Extract<PaletteEntry['run'], { action: string }>): Promise<string | null> {
  const path = { params: { path: { serviceId: run.serviceId } } };
  if (run.action === 'rollback') {
    const confirmed = await confirmDialog({
      title: `Roll ${run.serviceName} back?`,
      body: 'A deployment starts now: the release before the current one runs again with the configuration it had then.',
      confirmLabel: 'Roll back',
    });
    if (!confirmed) return null;
  }
  const answer =
    run.action === 'deploy'
      ? await api.POST('/api/services/{serviceId}/deployments', path)
      : run.action === 'restart'
        ? await api.POST('/api/services/{serviceId}/restart', path)
        : await api.POST('/api/services/{serviceId}/rollback', { ...path, body: { config: 'release' } });
  if (answer.error) {
    toast(messageOf(answer.error), 'error');
    return null;
  }
  toast(`${run.action === 'deploy' ? 'Deploying' : run.action === 'restart' ? 'Restarting' : 'Rolling back'} ${run.serviceName}`);
  return `/deployments/${answer.data.deployment.id}`;
}

/**
 * Ctrl/⌘-K: jump to any project, service or deployment (by its id), or deploy, restart or roll back a service.
 * A combobox over a list: arrows move, Enter runs, Escape closes.
 */
export function CommandPalette() {
  const { route } = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);
  const query = useSignal('');
  const active = useSignal(0);
  const listId = useId();
  const open = paletteOpen.value;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        // From what the page shows: a dialog just closed by Escape tells of it (its close event) a moment later.
        paletteOpen.value = !dialog.current?.open;
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      query.value = '';
      active.value = 0;
      el.showModal();
    } else if (!open && el.open) el.close();
  }, [open]);

  const matches = matchEntries(paletteEntries(projects.value ?? [], canWrite.value), query.value);
  const choose = async (entry: PaletteEntry | undefined) => {
    if (!entry) return;
    paletteOpen.value = false;
    const to = 'to' in entry.run ? entry.run.to : await runAction(entry.run);
    if (to) route(to);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      active.value = matches.length === 0 ? 0 : (active.value + step + matches.length) % matches.length;
    } else if (e.key === 'Enter') {
      e.preventDefault();
      void choose(matches[active.value]);
    }
  };
  const optionId = (i: number) => `${listId}-${i}`;

  return (
    <dialog ref={dialog} class="palette" aria-label="Command palette" onClose={() => (paletteOpen.value = false)}>
      {open && (
        <>
          <input
            class="palette-field"
            role="combobox"
            aria-expanded="true"
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={matches.length > 0 ? optionId(active.value) : undefined}
            aria-label="Jump to or run"
            placeholder="Jump to a project, a service, a deployment id — or deploy, restart, roll back…"
            value={query.value}
            onInput={(e) => {
              query.value = e.currentTarget.value;
              active.value = 0;
            }}
            onKeyDown={onKeyDown}
          />
          <ul id={listId} role="listbox" class="palette-list" aria-label="Matches">
            {matches.map((entry, i) => (
              <li key={entry.id} id={optionId(i)} role="option" class="palette-option" aria-selected={i === active.value} onClick={() => void choose(entry)} onMouseMove={() => (active.value = i)}>
                <span>
                  <span class="palette-kind">{entry.kind === 'action' ? 'Run' : 'Go'}</span>
                  {entry.label}
                </span>
                <span class="palette-hint">{entry.hint}</span>
              </li>
            ))}
          </ul>
          {matches.length === 0 && <p class="palette-empty">Nothing matches “{query.value}”.</p>}
          <p class="palette-keys" aria-hidden="true">
            <span>
              <kbd>↑</kbd> <kbd>↓</kbd> to move
            </span>
            <span>
              <kbd>Enter</kbd> to run
            </span>
            <span>
              <kbd>Esc</kbd> to close
            </span>
          </p>
        </>
      )}
    </dialog>
  );
}
