import { useSignal } from '@preact/signals';

/**
 * A row's role as a select, with its Save button only once another role is chosen: arrowing through the
 * choices changes nothing until the person says so.
 */
export function RoleChoice<R extends string>({ id, who, role, roles, save }: { id: string; who: string; role: R; roles: readonly R[]; save: (role: R) => Promise<void> }) {
  /** null: left alone, so a role changed elsewhere (the change feed) shows as it is. */
  const chosen = useSignal<R | null>(null);
  const busy = useSignal(false);
  const value = chosen.value ?? role;
  return (
    <span class="role-choice">
      <select id={id} aria-label={`Role of ${who}`} value={value} onChange={(e) => (chosen.value = e.currentTarget.value as R)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {value !== role && (
        <button
          type="button"
          disabled={busy.value}
          onClick={async () => {
            busy.value = true;
            await save(value);
            busy.value = false;
            chosen.value = null;
          }}
        >
          Save <span class="visually-hidden">the role of {who}</span>
        </button>
      )}
    </span>
  );
}
