import { useSignal } from '@preact/signals';
import { api } from '../../api.js';
import { copyText } from '../../copy-text.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { ownsInstallation } from '../../rights.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import type { ProjectName } from './types.js';

type Role = 'owner' | 'admin' | 'member';
type ProjectRole = 'admin' | 'deployer';
const fieldOf = fieldsByPath({ email: 'email', role: 'role', projects: 'projects' });
const ROLE_HELP: Record<Role, string> = {
  owner: 'Everything, people and the installation included.',
  admin: 'Every project; not people, keys, settings or the cluster.',
  member: 'The projects chosen below, each as an admin (everything in it) or a deployer (runs it).',
};

/** Invite a person: an e-mail, a role, a member's projects; the link is shown once, to send them. */
export function InviteForm({ projects, reload }: { projects: ProjectName[]; reload: () => Promise<void> }) {
  const email = useSignal('');
  const role = useSignal<Role>('member');
  const grants = useSignal<Record<string, ProjectRole>>({});
  const link = useSignal<{ url: string; email: string } | null>(null);
  const errors = useSignal(NO_ERRORS);
  const busy = useSignal(false);
  // Admins invite admins and members only: no owner is offered them.
  const roles: Role[] = ownsInstallation.value ? ['member', 'admin', 'owner'] : ['member', 'admin'];

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const projectsOf = role.value === 'member' ? Object.entries(grants.value).map(([projectId, r]) => ({ projectId, role: r })) : [];
    busy.value = true;
    const { data, error } = await api.POST('/api/invitations', { body: { email: email.value.trim(), role: role.value, projects: projectsOf } });
    busy.value = false;
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    link.value = { url: data.url, email: data.invitation.email ?? email.value };
    email.value = '';
    grants.value = {};
    await reload();
  };
  const grant = (projectId: string, value: string) => {
    const rest = Object.fromEntries(Object.entries(grants.value).filter(([id]) => id !== projectId));
    grants.value = value === '' ? rest : { ...rest, [projectId]: value as ProjectRole };
  };

  return (
    <section aria-labelledby="invite">
      <h2 id="invite">Invite a person</h2>
      {link.value && (
        <div class="secret" role="status">
          <p>
            The link for {link.value.email}, shown this once (valid 7 days, used once). Send it to them: it opens a page where they choose their name and password.
          </p>
          <p class="link-row">
            <code id="invitation-link">{link.value.url}</code>
            <button type="button" onClick={() => void copyText(link.value!.url, 'Link')}>
              Copy <span class="visually-hidden">the link</span>
            </button>
            <button type="button" class="btn-ghost" onClick={() => (link.value = null)}>
              Done
            </button>
          </p>
        </div>
      )}
      <ErrorNote message={errors.value.general} />
      <form class="settings aligned" aria-label="Invite a person" onSubmit={submit}>
        <label for="invite-email">E-mail</label>
        <input id="invite-email" type="email" required maxLength={254} autocomplete="off" value={email.value} onInput={(e) => (email.value = e.currentTarget.value)} {...invalidProps('invite-email', errors.value.fields.email)} />
        <FieldError id="invite-email" message={errors.value.fields.email} />
        <label for="invite-role">Role</label>
        <select
          id="invite-role"
          value={role.value}
          onChange={(e) => (role.value = e.currentTarget.value as Role)}
          {...invalidProps('invite-role', errors.value.fields.role)}
          aria-describedby={errors.value.fields.role ? 'invite-role-error invite-role-help' : 'invite-role-help'}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <p id="invite-role-help" class="help">
          {ROLE_HELP[role.value]}
        </p>
        <FieldError id="invite-role" message={errors.value.fields.role} />
        {role.value === 'member' && projects.length > 0 && (
          <fieldset class="grants" aria-describedby={errors.value.fields.projects ? 'invite-projects-error' : undefined}>
            <legend>Projects</legend>
            {projects.map((p) => (
              <p key={p.id} class="grant">
                <label for={`invite-project-${p.id}`}>{p.name}</label>
                <select id={`invite-project-${p.id}`} value={grants.value[p.id] ?? ''} onChange={(e) => grant(p.id, e.currentTarget.value)}>
                  <option value="">not in it</option>
                  <option value="deployer">deployer</option>
                  <option value="admin">admin</option>
                </select>
              </p>
            ))}
            <FieldError id="invite-projects" message={errors.value.fields.projects} />
          </fieldset>
        )}
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Inviting…' : 'Invite'}
        </button>
      </form>
    </section>
  );
}
