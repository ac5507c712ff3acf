/**
 * The fields of `current` whose value differs from `initial` (JSON values, compared as JSON): what a form
 * sends in a PATCH, so that a field nobody touched is never written back, whatever the form would make of it.
 */
export function changedFields<T extends Record<string, unknown>>(initial: T, current: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(current) as (keyof T)[]) {
    if (JSON.stringify(current[key]) !== JSON.stringify(initial[key])) changed[key] = current[key];
  }
  return changed;
}
