/** A database value as a cell shows it: nothing for null, JSON for objects, else its text. */
export const cellText = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
