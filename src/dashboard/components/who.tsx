import { session } from '../session.js';

/** Which key is signed in: its access and the projects it sees. */
export function Who() {
  const s = session.value;
  if (!s) return null;
  return (
    <span class="who">
      {s.access === 'write' ? 'Write key' : 'Read key'} · {s.projectIds ? `${s.projectIds.length} project${s.projectIds.length === 1 ? '' : 's'}` : 'all projects'}
    </span>
  );
}
