import type { ApiError } from './api.js';
import { messageOf } from './api.js';

/** An API refusal as a form shows it: each detail at the field it names, the rest at the top of the form. */
export interface FormErrors {
  general: string | null;
  /** By the form's own field name. */
  fields: Record<string, string>;
}

export const NO_ERRORS: FormErrors = { general: null, fields: {} };

/**
 * Which of a form's fields a detail's path (`resources.memory`, `config.to.0`) belongs to: the longest key of
 * `paths` that is the path or a prefix of it, by dots.
 */
export const fieldsByPath =
  (paths: Record<string, string>) =>
  (path: string): string | null => {
    const match = Object.keys(paths)
      .filter((prefix) => path === prefix || path.startsWith(`${prefix}.`))
      .sort((a, b) => b.length - a.length)[0];
    return match === undefined ? null : paths[match]!;
  };

/** What a refusal (or a failure to reach the API) says, split over the form's fields. */
export function formErrors(error: unknown, fieldOf: (path: string) => string | null): FormErrors {
  const details = (error as Partial<ApiError> | undefined)?.error?.details ?? [];
  if (details.length === 0) return { general: messageOf(error), fields: {} };
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const detail of details) {
    const field = fieldOf(detail.path);
    if (field === null) elsewhere.push(`${detail.path}: ${detail.message}`);
    else fields[field] = fields[field] ? `${fields[field]}; ${detail.message}` : detail.message;
  }
  return { general: elsewhere.length ? elsewhere.join('; ') : null, fields };
}

/** After a refusal the focus goes to the first field marked invalid, whose message is read with it. */
export function focusFirstInvalid(form: HTMLElement | null): void {
  requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}
