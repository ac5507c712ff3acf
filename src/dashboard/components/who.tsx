import { session } from '../session.js';

/** Who is signed in: a person by name and role, a key by its access and the projects it sees. */
export function Who() {
  const s = session.value;
  if (!s) return null;
  if (s.userId) {
    return (
      <a class="who" href="/account" title="My account">
        {s.name} · {s.role}
      </a>
    );
  }
  return (
    <span class="who">
      {s.access === 'write' ? 'Write key' : 'Read key'} · {s.projectIds ? `${s.projectIds.length} project${s.projectIds.length === 1 ? '' : 's'}` : 'all projects'}
    </span>
  );
}
