import { createHash, randomBytes } from 'node:crypto';
import { project } from '../project/aggregate.js';
import type { CommandContext } from '../shared/command-context.js';
import { conflict, invalid } from '../shared/domain-error.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { createPerson, normalEmail, type PeopleCredentials } from '../user/handlers.js';
import type { InstallationRole, ProjectGrant } from '../user/roles.js';
import { invitation, invitationGone } from './aggregate.js';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export const invitationKeyOf = (invitationId: string) => `invitation-${invitationId}`;
export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface InviteInput {
  email: string;
  role: InstallationRole;
  projects: ProjectGrant[];
}

/** The token is returned here and nowhere else: the log keeps its hash. */
export async function invitePerson(ctx: CommandContext, credentials: PeopleCredentials, input: InviteInput, now: Date) {
  const email = normalEmail(input.email);
  if (await credentials.emailTaken(credentials.emailIndex(email))) throw conflict('a person with this e-mail already has an account');
  const projects = [...new Map(input.projects.map((p) => [p.projectId, p])).values()];
  for (const [i, grant] of projects.entries()) {
    const { state } = await loadAggregate(ctx, project, grant.projectId);
    if (state.status !== 'live') throw invalid(`projects.${i}.projectId`, `unknown project ${grant.projectId}`);
  }
  const id = newId(ctx, 'invitation');
  const token = randomBytes(32).toString('base64url');
  const sealedEmail = await ctx.keyring.encrypt(invitationKeyOf(id), email);
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
  const result = await execute(ctx, invitation, id, (s) => invitation.decide.create(s, { sealedEmail, role: input.role, projects, tokenHash: hashInvitationToken(token), expiresAt }));
  const created = result.events[0];
  if (created?.type === 'InvitationCreated' && created.data.tokenHash !== hashInvitationToken(token)) {
    throw conflict(`an earlier attempt of this request created invitation ${id} and its link cannot be shown again: revoke it and invite again`);
  }
  return { id, token, email, expiresAt, position: result.position };
}

export async function revokeInvitation(ctx: CommandContext, id: string) {
  const result = await execute(ctx, invitation, id, invitation.decide.revoke);
  await ctx.keyring.shred(invitationKeyOf(id));
  return result;
}

/** The invited person's account, from the invitation's e-mail, role and projects; the invitation is used once. */
export async function acceptInvitation(ctx: CommandContext, credentials: PeopleCredentials, id: string, input: { name: string; password: string }, now: Date) {
  const { state } = await loadAggregate(ctx, invitation, id);
  invitation.decide.accept(state, { userId: '', now });
  const email = await ctx.keyring.decrypt(state.sealedEmail);
  if (email === null) throw invitationGone();
  const person = await createPerson(ctx, credentials, { email, name: input.name, password: input.password, role: state.role, invitationId: id, projects: state.projects });
  const accepted = await execute(ctx, invitation, id, (s) => invitation.decide.accept(s, { userId: person.id, now }));
  await ctx.keyring.shred(invitationKeyOf(id));
  return { userId: person.id, position: latest(person.position, accepted.position) };
}
