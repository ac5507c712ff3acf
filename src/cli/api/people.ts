import { answer, apiClient, CliError } from './client.js';
import { doneReading, readSecret } from './login.js';
import { table } from './output.js';
import { findProject } from './resolve.js';
import { print, type Output } from './resources.js';

type InstallationRole = 'owner' | 'admin' | 'member';
type GrantedRole = 'admin' | 'deployer' | 'viewer';

const GRANTED: readonly string[] = ['admin', 'deployer', 'viewer'];

/** The installation's first owner, with the key of `slipway login` (the bootstrap key); the password from stdin. */
export async function createOwner(o: Output & { email: string; name: string }) {
  const { api } = apiClient();
  const password = await readSecret('Password for the owner (12 characters at least)').finally(doneReading);
  const data = await answer(api.POST('/api/users/owner', { body: { email: o.email, name: o.name, password } }));
  print(o.json, data, () => `created the owner ${data.user.name} <${data.user.email}> (${data.user.id}): sign in to the dashboard, or run slipway login --email ${data.user.email}`);
}

export async function listUsers(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/users'));
  print(o.json, data, () =>
    table(
      ['ID', 'NAME', 'EMAIL', 'ROLE', 'PROJECTS'],
      data.users.map((u) => [u.id, u.name, u.email ?? '', u.role, u.role === 'member' ? u.projects.map((p) => `${p.projectId}:${p.role}`).join(',') : 'all']),
    ),
  );
}

export async function setUserRole(userId: string, role: InstallationRole, o: Output) {
  const { api } = apiClient();
  const data = await answer(api.PATCH('/api/users/{userId}', { params: { path: { userId } }, body: { role } }));
  print(o.json, data, () => `${data.user.name} is now ${data.user.role}`);
}

export async function removeUser(userId: string, o: Output & { erase?: boolean }) {
  const { api } = apiClient();
  const data = await answer(api.DELETE('/api/users/{userId}', { params: { path: { userId }, query: o.erase ? { erase: 'true' } : {} } }));
  print(o.json, data, () => (o.erase ? `removed and erased ${userId}: the history says "deleted user ${userId}"` : `removed ${userId}: their sessions and keys stopped working`));
}

/** `<project>:<role>` pairs, the project by slug or id. */
async function grants(projects: readonly string[]): Promise<{ projectId: string; role: GrantedRole }[]> {
  const { api } = apiClient();
  return Promise.all(
    projects.map(async (pair) => {
      const [ref, role] = pair.split(':') as [string, string | undefined];
      if (!role || !GRANTED.includes(role)) throw new CliError(`${pair}: give a project and a role, as <project>:admin, <project>:deployer or <project>:viewer`);
      return { projectId: (await findProject(api, ref)).id, role: role as GrantedRole };
    }),
  );
}

export async function invite(email: string, o: Output & { role: InstallationRole; project?: string[] }) {
  const { api } = apiClient();
  const data = await answer(api.POST('/api/invitations', { body: { email, role: o.role, projects: await grants(o.project ?? []) } }));
  print(o.json, data, () => `invited ${email} as ${o.role}; send them this link (shown once, valid until ${data.invitation.expiresAt}):\n${data.url}`);
}

export async function listInvitations(o: Output) {
  const { api } = apiClient();
  const data = await answer(api.GET('/api/invitations'));
  print(o.json, data, () =>
    data.invitations.length === 0 ? 'no pending invitations' : table(['ID', 'EMAIL', 'ROLE', 'EXPIRES'], data.invitations.map((i) => [i.id, i.email ?? '', i.role, i.expiresAt])),
  );
}

export async function revokeInvitation(id: string, o: Output) {
  const { api } = apiClient();
  const data = await answer(api.DELETE('/api/invitations/{invitationId}', { params: { path: { invitationId: id } } }));
  print(o.json, data, () => `revoked invitation ${id}: its link no longer works`);
}

export async function listMembers(project: string, o: Output) {
  const { api } = apiClient();
  const { id } = await findProject(api, project);
  const data = await answer(api.GET('/api/projects/{projectId}/members', { params: { path: { projectId: id } } }));
  print(o.json, data, () => (data.members.length === 0 ? 'no members: owners and admins see every project' : table(['USER', 'NAME', 'EMAIL', 'ROLE'], data.members.map((m) => [m.userId, m.name, m.email ?? '', m.role]))));
}

export async function setMember(project: string, userId: string, role: string, o: Output) {
  if (!GRANTED.includes(role)) throw new CliError(`${role}: a project role is admin, deployer or viewer`);
  const { api } = apiClient();
  const { id } = await findProject(api, project);
  const data = await answer(api.PUT('/api/projects/{projectId}/members/{userId}', { params: { path: { projectId: id, userId } }, body: { role: role as GrantedRole } }));
  print(o.json, data, () => `${data.member.name} is ${data.member.role} of ${project}`);
}

export async function removeMember(project: string, userId: string, o: Output) {
  const { api } = apiClient();
  const { id } = await findProject(api, project);
  const data = await answer(api.DELETE('/api/projects/{projectId}/members/{userId}', { params: { path: { projectId: id, userId } } }));
  print(o.json, data, () => `${userId} is no longer a member of ${project}`);
}
