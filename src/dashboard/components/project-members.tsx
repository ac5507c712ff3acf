import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { useLiveReload } from '../live-reload.js';
import { managesPeople } from '../rights.js';
import { session } from '../session.js';
import { DangerButton } from './danger-button.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';
import { RoleBadge } from './people/role-badge.js';
import { RoleChoice } from './people/role-choice.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';
import { TableScroll } from './ui/table-scroll.js';
import { toast } from './ui/toast.js';
import '../styles/people.css';

type Member = GetAnswer<'/api/projects/{projectId}/members'>['members'][number];
type Person = GetAnswer<'/api/users'>['users'][number];
type Granted = 'admin' | 'deployer';
const ROLES: readonly Granted[] = ['deployer', 'admin'];
const fieldOf = fieldsByPath({ userId: 'person', role: 'role' });

/**
 * A project's members. Everyone who sees the project sees who is in it; the controls are for whoever may change
 * them (owners, admins, the project's admins, a write key). Adding someone needs the list of people, which only
 * owners and admins have: a project's admin who is a member changes and removes members, and asks an admin to add one.
 */
export function ProjectMembers({ projectId, projectName }: { projectId: string; projectName: string }) {
  const members = useSignal<Member[] | null>(null);
  const people = useSignal<Person[]>([]);
  const mayChoose = useSignal(false);
  const person = useSignal('');
  const role = useSignal<Granted>('deployer');
  const errors = useSignal(NO_ERRORS);

  const load = async () => {
    const s = session.value;
    const [m, u, me] = await Promise.all([
      api.GET('/api/projects/{projectId}/members', { params: { path: { projectId } } }),
      managesPeople.value ? api.GET('/api/users') : null,
      s?.role === 'member' ? api.GET('/api/users/me') : null,
    ]);
    if (m.error) return void (errors.value = { general: messageOf(m.error), fields: {} });
    members.value = m.data.members;
    people.value = u?.data?.users ?? [];
    const myRole = me?.data?.user.projects.find((p) => p.projectId === projectId)?.role;
    mayChoose.value = s?.access === 'write' && (s.role !== 'member' || myRole === 'admin');
  };
  useEffect(() => {
    members.value = null;
    void load();
  }, [projectId]);
  // Members change on the project's stream; a person renamed or removed on theirs.
  useLiveReload((change) => change.projectId === projectId || change.streamId.startsWith('user-'), load);

  const setRole = async (userId: string, r: Granted) => {
    const { error } = await api.PUT('/api/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } }, body: { role: r } });
    if (error) errors.value = formErrors(error, fieldOf);
    return error;
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const failed = await setRole(person.value, role.value);
    if (failed) return focusFirstInvalid(form);
    errors.value = NO_ERRORS;
    toast(`${people.value.find((p) => p.id === person.value)?.name ?? 'They'} joined ${projectName} as ${role.value}.`);
    person.value = '';
    await load();
  };
  const change = async (m: Member, r: Granted) => {
    if (!(await setRole(m.userId, r))) errors.value = NO_ERRORS;
    await load();
  };
  const remove = async (m: Member) => {
    const confirmed = await confirmDialog({ title: `Take ${m.name} out of ${projectName}?`, body: 'It applies on their next request; their personal keys lose this project too.', confirmLabel: 'Take out', danger: true });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId: m.userId } } });
    errors.value = error ? { general: messageOf(error), fields: {} } : NO_ERRORS;
    await load();
  };

  const list = members.value;
  if (!list) return <ErrorNote message={errors.value.general} />;
  const candidates = people.value.filter((p) => p.role === 'member' && !list.some((m) => m.userId === p.id));
  return (
    <section aria-labelledby="project-members" class="project-members">
      <div class="section-title">
        <h2 id="project-members">Members</h2>
      </div>
      <p class="muted">Owners and admins have every project; members have the projects they are given.</p>
      <ErrorNote message={errors.value.general} />
      {list.length === 0 ? (
        <p>No members yet.</p>
      ) : (
        <TableScroll label={`Members of ${projectName}`}>
          <table>
            <TableHead columns={['Name', 'E-mail', 'Role']} actions={mayChoose.value} />
            <tbody>
              {list.map((m) => (
                <tr key={m.userId}>
                  <td>{m.name}</td>
                  <td>{m.email}</td>
                  <td>{mayChoose.value && m.role !== 'viewer' ? <RoleChoice id={`member-${m.userId}`} who={m.name} role={m.role} roles={ROLES} save={(r) => change(m, r)} /> : <RoleBadge role={m.role} />}</td>
                  {mayChoose.value && (
                    <td>
                      <DangerButton label="Take out" what={m.name} onClick={() => void remove(m)} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {mayChoose.value && managesPeople.value && candidates.length === 0 && (
        <p class="muted">
          No other member to add: invite people on the installation’s <a href="/installation?tab=people">People</a> tab.
        </p>
      )}
      {mayChoose.value && managesPeople.value && candidates.length > 0 && (
        <form class="inline" aria-label={`Add a member to ${projectName}`} onSubmit={add}>
          <label for="member-person">Add</label>
          <select id="member-person" required value={person.value} onChange={(e) => (person.value = e.currentTarget.value)} {...invalidProps('member-person', errors.value.fields.person)}>
            <option value="">choose a person</option>
            {candidates.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.email})
              </option>
            ))}
          </select>
          <label for="member-role">as</label>
          <select id="member-role" value={role.value} onChange={(e) => (role.value = e.currentTarget.value as Granted)} {...invalidProps('member-role', errors.value.fields.role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
          <button type="submit">
            Add member
          </button>
          <FieldError id="member-person" message={errors.value.fields.person} />
          <FieldError id="member-role" message={errors.value.fields.role} />
        </form>
      )}
    </section>
  );
}
