import { project } from '../project/aggregate.js';
import type { CommandContext } from '../shared/command-context.js';
import { conflict } from '../shared/domain-error.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { user } from './aggregate.js';
import type { InstallationRole, ProjectGrant, ProjectRole } from './roles.js';

/** Where a person's sign-in lives: outside the log (src/people/credentials.ts). */
export interface PeopleCredentials {
  emailIndex(email: string): string;
  hashPassword(password: string): Promise<string>;
  /** Claims the e-mail for the person; false when another person has it. */
  create(userId: string, emailIndex: string, passwordHash: string): Promise<boolean>;
  emailTaken(emailIndex: string): Promise<boolean>;
  setPassword(userId: string, passwordHash: string): Promise<void>;
  delete(userId: string): Promise<void>;
}

/** The keyring's aggregate id for a person's data key: shredding it erases them. */
export const userKeyOf = (userId: string) => `user-${userId}`;
export const normalEmail = (email: string) => email.trim().toLowerCase();

export interface NewPerson {
  email: string;
  name: string;
  password: string;
  role: InstallationRole;
  invitationId: string | null;
  projects: readonly ProjectGrant[];
}

/**
 * A person with an account: their e-mail claimed in the credentials (409 when someone has it), then the
 * account, sealed under their own data key, then their projects (a project deleted meanwhile is skipped).
 */
export async function createPerson(ctx: CommandContext, credentials: PeopleCredentials, person: NewPerson) {
  const id = newId(ctx, 'user');
  const email = normalEmail(person.email);
  if (!(await credentials.create(id, credentials.emailIndex(email), await credentials.hashPassword(person.password)))) {
    throw conflict('a person with this e-mail already has an account');
  }
  try {
    const sealedEmail = await ctx.keyring.encrypt(userKeyOf(id), email);
    const sealedName = await ctx.keyring.encrypt(userKeyOf(id), person.name);
    const created = await execute(ctx, user, id, (s) => user.decide.create(s, { role: person.role, sealedEmail, sealedName, invitationId: person.invitationId }));
    let position = created.position;
    for (const grant of person.projects) {
      const { state } = await loadAggregate(ctx, project, grant.projectId);
      if (state.status !== 'live') continue;
      position = latest(position, (await setMember(ctx, grant.projectId, id, grant.role)).position);
    }
    return { id, position };
  } catch (error) {
    await credentials.delete(id);
    throw error;
  }
}

export const setMember = (ctx: CommandContext, projectId: string, userId: string, role: ProjectRole) =>
  execute(ctx, project, projectId, (s) => project.decide.setMember(s, { userId, role }));

export const removeMember = (ctx: CommandContext, projectId: string, userId: string) => execute(ctx, project, projectId, (s) => project.decide.removeMember(s, userId));

/** An active person's role; the last owner cannot stop being one (`owners`: how many there are now). */
export async function changeUserRole(ctx: CommandContext, userId: string, role: InstallationRole, owners: number) {
  return execute(ctx, user, userId, (s) => {
    if (s.status === 'active' && s.role === 'owner' && role !== 'owner' && owners <= 1) throw conflict('the installation’s last owner cannot stop being one: make another owner first');
    return user.decide.changeRole(s, role);
  });
}

export async function renameUser(ctx: CommandContext, userId: string, name: string) {
  const sealedName = await ctx.keyring.encrypt(userKeyOf(userId), name);
  return execute(ctx, user, userId, (s) => user.decide.rename(s, sealedName));
}

export async function changePassword(ctx: CommandContext, credentials: PeopleCredentials, userId: string, password: string) {
  const result = await execute(ctx, user, userId, user.decide.changePassword);
  await credentials.setPassword(userId, await credentials.hashPassword(password));
  return result;
}

/**
 * A person goes: out of every project they were in (`memberOf`), their sign-in deleted; the last owner stays.
 * With `erase`, their data key is shredded too: their e-mail and name are unreadable everywhere from then on.
 */
export async function removePerson(
  ctx: CommandContext,
  credentials: PeopleCredentials,
  userId: string,
  { memberOf, owners, erase }: { memberOf: readonly string[]; owners: number; erase: boolean },
) {
  const removed = await execute(ctx, user, userId, (s) => {
    if (s.status === 'active' && s.role === 'owner' && owners <= 1) throw conflict('the installation’s last owner cannot be removed: make another owner first');
    return user.decide.remove(s);
  });
  let position = removed.position;
  for (const projectId of memberOf) position = latest(position, (await removeMember(ctx, projectId, userId)).position);
  await credentials.delete(userId);
  if (erase) {
    position = latest(position, (await execute(ctx, user, userId, user.decide.erase)).position);
    await ctx.keyring.shred(userKeyOf(userId));
  }
  return { position };
}

export const recordTwoFactor = (ctx: CommandContext, userId: string, enabled: boolean) =>
  execute(ctx, user, userId, enabled ? user.decide.enableTwoFactor : user.decide.disableTwoFactor);
