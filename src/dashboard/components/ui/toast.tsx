import { signal } from '@preact/signals';
import { CloseIcon } from './icons.js';

type Kind = 'success' | 'error' | 'info';
interface Note {
  id: number;
  message: string;
  kind: Kind;
}

const TONE: Record<Kind, string> = { success: 'tone-success', error: 'tone-danger', info: 'tone-info' };
const notes = signal<Note[]>([]);
let lastId = 0;

const dismiss = (id: number) => (notes.value = notes.value.filter((n) => n.id !== id));

/** Says something happened, in the corner, for a few seconds (an error for longer); screen readers hear it politely. */
export function toast(message: string, kind: Kind = 'success'): void {
  const id = ++lastId;
  notes.value = [...notes.value, { id, message, kind }];
  setTimeout(() => dismiss(id), kind === 'error' ? 10_000 : 5_000);
}

/** Where toasts appear: a live region that is always in the page, so that what is added to it is announced. */
export function Toaster() {
  return (
    <div class="toasts" aria-live="polite">
      {notes.value.map((n) => (
        <div key={n.id} class={`toast ${TONE[n.kind]}`}>
          <p>{n.message}</p>
          <button type="button" class="btn-ghost" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            <CloseIcon />
          </button>
        </div>
      ))}
    </div>
  );
}
