/** The attributes that tie a field to its error: marked invalid, the message read with it. */
export const invalidProps = (id: string, message: string | undefined) =>
  message ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : { 'aria-invalid': undefined, 'aria-describedby': undefined };

/**
 * An API refusal of one field, shown right after it (`id` is the field's). A paragraph: placed as a child of the
 * form, a settings form's grid gives it a row of its own.
 */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={`${id}-error`} class="error">
      {message}
    </p>
  );
}
