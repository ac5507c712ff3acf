import { useSignal } from '@preact/signals';
import { api, messageOf } from '../../api.js';
import { ownsInstallation } from '../../rights.js';
import { session } from '../../session.js';
import { DangerButton } from '../danger-button.js';
import { ErrorNote } from '../error-note.js';
import { TableHead } from '../table-head.js';
import { Badge } from '../ui/badge.js';
import { confirmDialog } from '../ui/dialog.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { toast } from '../ui/toast.js';
import { projectGrants } from './project-names.js';
import { RoleBadge } from './role-badge.js';
import { RoleChoice } from './role-choice.js';
import type { Person, ProjectName } from './types.js';

const ROLES = ['owner', 'admin', 'member'] as const;

/** Everyone with an account; an owner (or an all-project write key) also changes roles and removes people. */
export function PeopleList({ people, projects, reload }: { people: Person[]; projects: ProjectName[]; reload: () => Promise<void> }) {
  const error = useSignal<string | null>(null);
  const owner = ownsInstallation.value;
  const me = session.value?.userId ?? null;

  const changeRole = async (person: Person, role: Person['role']) => {
    const { error: failed } = await api.PATCH('/api/users/{userId}', { params: { path: { userId: person.id } }, body: { role } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) toast(`${person.name} is now ${role === 'admin' ? 'an' : 'a'} ${role}.`);
    await reload();
  };
  const remove = async (person: Person) => {
    const confirmed = await confirmDialog({
      title: `Remove ${person.name}?`,
      body: `${person.email ?? 'They'} can no longer sign in: their sessions end at once and their personal keys stop working. What they did stays in the audit log.`,
      confirmLabel: 'Remove',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/users/{userId}', { params: { path: { userId: person.id } } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) toast(`${person.name} was removed.`);
    await reload();
  };

  return (
    <section aria-labelledby="people">
      <h2 id="people">People</h2>
      <ErrorNote message={error.value} />
      <TableScroll label="People">
        <table class="people">
          <TableHead columns={['Name', 'E-mail', 'Role', 'Two factors', 'Joined']} actions={owner} />
          <tbody>
            {people.map((p) => (
              <tr key={p.id}>
                <td>
                  {p.name}
                  {p.id === me && <span class="muted"> (you)</span>}
                  {p.role === 'member' && <span class="person-projects">{p.projects.length ? projectGrants(p.projects, projects) : 'no project yet'}</span>}
                </td>
                <td>{p.email}</td>
                <td>
                  <RoleBadge role={p.role} />
                </td>
                <td>{p.twoFactor ? <Badge status="on" tone="success" /> : <Badge status="off" tone="neutral" />}</td>
                <td>
                  <RelativeTime at={p.createdAt} />
                </td>
                {owner && (
                  <td>
                    {/* Nobody demotes or removes themselves here: another owner does, so an installation keeps one. */}
                    {p.id !== me && (
                      <div class="row-actions">
                        <RoleChoice id={`role-${p.id}`} who={p.name} role={p.role} roles={ROLES} save={(role) => changeRole(p, role)} />
                        <DangerButton label="Remove" what={p.name} onClick={() => void remove(p)} />
                      </div>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
