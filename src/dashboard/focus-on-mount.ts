/**
 * A ref that focuses its element once it is in the page. The `autofocus` attribute works once per document,
 * so fields that appear later (an edited cell, the sign-in form after a session ended) need this.
 */
export const focusOnMount = (element: HTMLElement | null) => element?.focus();
