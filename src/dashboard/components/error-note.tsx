/** An API error, shown where the action was taken. */
export function ErrorNote({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
