import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import '../../styles/dialog.css';
import { showDialog } from './dialog-host.js';

export interface AskOptions {
  title: string;
  body?: string;
  /** The field's label: `New name`, `Why skip it (recorded in the audit log)`. */
  label: string;
  value?: string;
  confirmLabel: string;
}

/**
 * Asks for one line of text in a modal `<dialog>` (the page's own, not `window.prompt`): the answer trimmed, or
 * null when cancelled or left empty. Escape cancels; the focus goes back to the control that asked.
 */
export function askDialog(options: AskOptions): Promise<string | null> {
  return showDialog<string | null>((answer) => <AskDialog {...options} answer={answer} />);
}

function AskDialog({ title, body, label, value = '', confirmLabel, answer }: AskOptions & { answer: (text: string | null) => void }) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(value);
  useLayoutEffect(() => {
    dialog.current!.showModal();
    field.current!.select();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby={`${id}-title`}
      aria-describedby={body ? `${id}-body` : undefined}
      onClose={() => answer(dialog.current!.returnValue === 'confirm' && text.trim() !== '' ? text.trim() : null)}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() !== '') dialog.current!.close('confirm');
        }}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        {body && <p id={`${id}-body`}>{body}</p>}
        <p class="dialog-typed">
          <label for={`${id}-text`}>{label}</label>
          <input id={`${id}-text`} ref={field} autocomplete="off" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </p>
        <p class="dialog-actions">
          <button type="button" onClick={() => dialog.current!.close('cancel')}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={text.trim() === ''}>
            {confirmLabel}
          </button>
        </p>
      </form>
    </dialog>
  );
}
