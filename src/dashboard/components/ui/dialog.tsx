import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import '../../styles/dialog.css';
import { showDialog } from './dialog-host.js';

export interface ConfirmOptions {
  /** The question, naming what goes: `Delete service web and its 3 domains?` */
  title: string;
  /** What follows from it, in a sentence or two. */
  body?: string;
  /** The button that does it: `Delete service`. */
  confirmLabel: string;
  danger?: boolean;
  /** A name the person types before the button works: for what cannot be undone. */
  typeToConfirm?: string;
}

/**
 * Asks a question in a modal `<dialog>`: focus stays in it, Escape and Cancel answer false, and the focus goes
 * back to the control that asked. Each question gets a host of its own, so no screen has to render one.
 */
export function confirmDialog(options: ConfirmOptions): Promise<boolean> {
  return showDialog<boolean>((answer) => <ConfirmDialog {...options} answer={answer} />);
}

function ConfirmDialog({ title, body, confirmLabel, danger = false, typeToConfirm, answer }: ConfirmOptions & { answer: (confirmed: boolean) => void }) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const typedField = useRef<HTMLInputElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const [typed, setTyped] = useState('');
  const ready = typeToConfirm === undefined || typed.trim() === typeToConfirm;

  // Open as soon as it is in the page: a test, or a quick keystroke, finds it open once the question is asked.
  useLayoutEffect(() => {
    dialog.current!.showModal();
    // The least harmful first stop: the name to type, Cancel before a destructive button, else the button itself.
    (typeToConfirm !== undefined ? typedField : danger ? cancel : confirm).current!.focus();
  }, []);

  return (
    // Escape, Cancel and the button all close the dialog; its return value says which.
    <dialog ref={dialog} class="confirm" aria-labelledby={`${id}-title`} aria-describedby={body ? `${id}-body` : undefined} onClose={() => answer(dialog.current!.returnValue === 'confirm')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) dialog.current!.close('confirm');
        }}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        {body && <p id={`${id}-body`}>{body}</p>}
        {typeToConfirm !== undefined && (
          <p class="dialog-typed">
            <label for={`${id}-typed`}>
              Type <strong>{typeToConfirm}</strong> to confirm
            </label>
            <input id={`${id}-typed`} ref={typedField} autocomplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
          </p>
        )}
        <p class="dialog-actions">
          <button type="button" ref={cancel} onClick={() => dialog.current!.close('cancel')}>
            Cancel
          </button>
          <button type="submit" ref={confirm} class={danger ? 'danger' : 'primary'} disabled={!ready}>
            {confirmLabel}
          </button>
        </p>
      </form>
    </dialog>
  );
}
