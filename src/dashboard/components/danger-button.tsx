/** A destructive button whose accessible name says what it acts on (`Remove GREETING`). */
export function DangerButton({ label, what, onClick }: { label: string; what: string; onClick: () => void }) {
  return (
    <button type="button" class="danger" onClick={onClick}>
      {label} <span class="visually-hidden">{what}</span>
    </button>
  );
}
