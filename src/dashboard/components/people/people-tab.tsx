import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { useLiveReload } from '../../live-reload.js';
import { ErrorNote } from '../error-note.js';
import { Skeleton } from '../ui/skeleton.js';
import { InviteForm } from './invite-form.js';
import { PendingInvitations } from './pending-invitations.js';
import { PeopleList } from './people-list.js';
import type { Invitation, Person, ProjectName } from './types.js';
import '../../styles/people.css';


/** What a change to a person, an invitation or a project's members is: the People tab shows all three. */
const touchesPeople = (change: { streamId: string; type: string }) => /^(user|invitation)-/.test(change.streamId) || change.type.startsWith('ProjectMember');

/** The installation's People tab (owners, admins, all-project write keys): everyone, invitations, inviting. */
export function PeopleTab() {
  const people = useSignal<Person[] | null>(null);
  const invitations = useSignal<Invitation[]>([]);
  const projects = useSignal<ProjectName[]>([]);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const [u, i, p] = await Promise.all([api.GET('/api/users'), api.GET('/api/invitations'), api.GET('/api/projects')]);
    if (u.error || i.error) return void (error.value = messageOf(u.error ?? i.error));
    error.value = null;
    people.value = u.data.users;
    invitations.value = i.data.invitations;
    projects.value = (p.data?.projects ?? []).map(({ id, name }) => ({ id, name }));
  };
  useEffect(() => {
    void load();
  }, []);
  // Someone accepting their link, a role changed by another owner, the CLI: it shows here as it happens.
  useLiveReload(touchesPeople, load);

  if (!people.value)
    return (
      <section aria-labelledby="people">
        <h2 id="people">People</h2>
        <ErrorNote message={error.value} />
        {!error.value && <Skeleton />}
      </section>
    );
  return (
    <>
      <PeopleList people={people.value} projects={projects.value} reload={load} />
      <PendingInvitations invitations={invitations.value} projects={projects.value} reload={load} />
      <InviteForm projects={projects.value} reload={load} />
    </>
  );
}
