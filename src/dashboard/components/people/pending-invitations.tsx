import { useSignal } from '@preact/signals';
import { api, messageOf } from '../../api.js';
import { DangerButton } from '../danger-button.js';
import { ErrorNote } from '../error-note.js';
import { TableHead } from '../table-head.js';
import { confirmDialog } from '../ui/dialog.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';
import { toast } from '../ui/toast.js';
import { projectGrants } from './project-names.js';
import { RoleBadge } from './role-badge.js';
import type { Invitation, ProjectName } from './types.js';

/** Invitations not yet accepted, revoked or expired; revoking one makes its link useless. */
export function PendingInvitations({ invitations, projects, reload }: { invitations: Invitation[]; projects: ProjectName[]; reload: () => Promise<void> }) {
  const error = useSignal<string | null>(null);
  const revoke = async (invitation: Invitation) => {
    const who = invitation.email ?? 'this person';
    const confirmed = await confirmDialog({ title: `Revoke the invitation of ${who}?`, body: 'Its link stops working; you can invite them again later.', confirmLabel: 'Revoke', danger: true });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/invitations/{invitationId}', { params: { path: { invitationId: invitation.id } } });
    error.value = failed ? messageOf(failed) : null;
    if (!failed) toast(`The invitation of ${who} was revoked.`);
    await reload();
  };
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Pending invitations</h2>
      <ErrorNote message={error.value} />
      {invitations.length === 0 ? (
        <p class="muted">None: every invitation was accepted, revoked or has expired.</p>
      ) : (
        <TableScroll label="Pending invitations">
          <table>
            <TableHead columns={['E-mail', 'Role', 'Sent', 'Expires']} actions />
            <tbody>
              {invitations.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>
                    <RoleBadge role={i.role} />
                    {i.projects.length > 0 && <span class="person-projects">{projectGrants(i.projects, projects)}</span>}
                  </td>
                  <td>
                    <RelativeTime at={i.createdAt} />
                  </td>
                  <td>
                    <RelativeTime at={i.expiresAt} />
                  </td>
                  <td>
                    <DangerButton label="Revoke" what={`the invitation of ${i.email ?? 'this person'}`} onClick={() => void revoke(i)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
