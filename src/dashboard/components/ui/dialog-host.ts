import { render, type VNode } from 'preact';

/**
 * Shows a modal dialog of its own, outside any screen, and resolves with its answer; the focus then goes back to
 * the control that asked.
 */
export function showDialog<T>(dialog: (answer: (value: T) => void) => VNode): Promise<T> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const host = document.body.appendChild(document.createElement('div'));
  return new Promise((resolve) => {
    const answer = (value: T) => {
      render(null, host);
      host.remove();
      if (opener?.isConnected) opener.focus();
      resolve(value);
    };
    render(dialog(answer), host);
  });
}
