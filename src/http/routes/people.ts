import type Router from '@koa/router';
import type { Context } from 'koa';
import { changePassword, changeUserRole, createPerson, recordTwoFactor, removeMember, removePerson, renameUser, setMember } from '../../../commands/user/handlers.js';
import { invalid } from '../../../commands/shared/domain-error.js';
import { latest } from '../../../commands/shared/execute.js';
import { countOwners, findUser, listUsers, membersOf, membershipsOf, type UserRow } from '../../../projections/people-queries.js';
import type { People } from '../../people/people.js';
import { createApiKey, revokeApiKey } from '../../../commands/api-key/handlers.js';
import { findApiKey, listKeysOf } from '../../../projections/api-key-queries.js';
import { presentApiKey } from '../presenters.js';
import type { Slipway } from '../../slipway.js';
import { canSee, isId, principalOf, requireAllProjects, requireInstallation, requireProjectAdmin, visibleProject, writerOf } from '../auth.js';
import { peopleApi } from '../contract/people.js';
import { route } from '../contract/endpoint.js';
import { forbidden, notFoundHttp } from '../errors.js';
import type { Principal } from '../principals.js';
import { requestContext } from '../request-context.js';
import type { SessionAuth } from '../session-auth.js';
import { parseInput } from '../validation.js';

/** People and invitations (routes/invitations.ts): owners, admins and all-project write keys. */
export function requirePeopleAdmin(principal: Principal, what: string) {
  if (principal.access !== 'write') throw forbidden(`${what} needs write access`);
  requireAllProjects(principal, what);
}

export async function personOf(app: Slipway, people: People, row: UserRow) {
  const projects = row.role === 'member' ? (await membershipsOf(app.db, row.id)).map((m) => ({ projectId: m.project_id, role: m.role })) : [];
  return { ...(await people.view(row)), projects };
}

export async function activePerson(app: Slipway, id: string): Promise<UserRow> {
  const row = isId(id) ? await findUser(app.db, id) : null;
  if (!row || row.removed_at !== null) throw notFoundHttp('user');
  return row;
}

/** The person of a session; a key is nobody. */
function personIdOf(ctx: Context): string {
  const { userId } = principalOf(ctx);
  if (!userId) throw forbidden('this request was made with an API key: sign in as a person (POST /api/sessions with an e-mail and password)');
  return userId;
}

export function peopleRoutes(router: Router, app: Slipway, people: People, sessions: SessionAuth) {
  route(router, peopleApi.createOwner, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'creating the first owner');
    const body = parseInput(peopleApi.createOwner.body, ctx.request.body);
    if ((await countOwners(app.db)) > 0) throw invalid('email', 'the installation has an owner already: owners invite people (POST /api/invitations)');
    const { id, position } = await createPerson(requestContext(app, ctx, principal), people, { ...body, role: 'owner', invitationId: null, projects: [] });
    await app.settle(position);
    ctx.body = { user: await personOf(app, people, await activePerson(app, id)) };
  });

  route(router, peopleApi.list, async (ctx) => {
    requirePeopleAdmin(principalOf(ctx), 'listing people');
    ctx.body = { users: await Promise.all((await listUsers(app.db)).map((row) => personOf(app, people, row))) };
  });

  // Before /api/users/:userId, which would take "me" for an id.
  route(router, peopleApi.me, async (ctx) => {
    ctx.body = { user: await personOf(app, people, await activePerson(app, personIdOf(ctx))) };
  });

  route(router, peopleApi.updateMe, async (ctx) => {
    const userId = personIdOf(ctx);
    const body = parseInput(peopleApi.updateMe.body, ctx.request.body);
    const command = requestContext(app, ctx, principalOf(ctx));
    let position: string | null = null;
    if (body.password) {
      if (!(await people.passwordMatches(userId, body.password.current))) throw invalid('password.current', 'this is not your current password');
      position = (await changePassword(command, people, userId, body.password.new)).position;
      const session = ctx.state.session as { token: string } | undefined;
      await sessions.store.closeAllOf(userId, session?.token);
    }
    if (body.name !== undefined) position = latest(position, (await renameUser(command, userId, body.name)).position);
    await app.settle(position);
    ctx.body = { user: await personOf(app, people, await activePerson(app, userId)) };
  });

  const sessionTokenOfRequest = (ctx: Context) => (ctx.state.session as { token: string } | undefined)?.token;

  route(router, peopleApi.mySessions, async (ctx) => {
    ctx.body = { sessions: await sessions.store.listOf(personIdOf(ctx), sessionTokenOfRequest(ctx)) };
  });

  route(router, peopleApi.endMySession, async (ctx) => {
    if (!(await sessions.store.closeOf(personIdOf(ctx), ctx.params.sessionId!))) throw notFoundHttp('session');
    ctx.body = { ok: true };
  });

  route(router, peopleApi.endMyOtherSessions, async (ctx) => {
    await sessions.store.closeAllOf(personIdOf(ctx), sessionTokenOfRequest(ctx));
    ctx.body = { ok: true };
  });

  /** A person's own session, not a key of theirs: a leaked key must not change how they sign in. */
  const sessionPersonOf = (ctx: Context) => {
    const userId = personIdOf(ctx);
    if (principalOf(ctx).keyId !== null) throw forbidden('two factors are set from a signed-in session, not with a key');
    return userId;
  };

  route(router, peopleApi.startTwoFactor, async (ctx) => {
    const userId = sessionPersonOf(ctx);
    const view = await people.view(await activePerson(app, userId));
    ctx.body = await people.startTwoFactor(userId, view.email ?? userId);
  });

  route(router, peopleApi.confirmTwoFactor, async (ctx) => {
    const userId = sessionPersonOf(ctx);
    const { code } = parseInput(peopleApi.confirmTwoFactor.body, ctx.request.body);
    const recoveryCodes = await people.confirmTwoFactor(userId, code);
    if (!recoveryCodes) throw invalid('code', 'this is not a current code of the new secret: start again with POST /api/users/me/totp if need be');
    await app.settle((await recordTwoFactor(requestContext(app, ctx, principalOf(ctx)), userId, true)).position);
    ctx.body = { recoveryCodes };
  });

  route(router, peopleApi.disableTwoFactor, async (ctx) => {
    const userId = sessionPersonOf(ctx);
    const { password } = parseInput(peopleApi.disableTwoFactor.body, ctx.request.body);
    if (!(await people.passwordMatches(userId, password))) throw invalid('password', 'this is not your password');
    await people.disableTwoFactor(userId);
    await app.settle((await recordTwoFactor(requestContext(app, ctx, principalOf(ctx)), userId, false)).position);
    ctx.body = { ok: true };
  });

  route(router, peopleApi.myKeys, async (ctx) => {
    ctx.body = { keys: (await listKeysOf(app.db, personIdOf(ctx))).map(presentApiKey) };
  });

  route(router, peopleApi.createMyKey, async (ctx) => {
    const principal = principalOf(ctx);
    const userId = personIdOf(ctx);
    // A key mints no key: a leaked read key must not become a write key.
    if (principal.keyId !== null) throw forbidden('personal keys are created from a signed-in session, not with a key');
    const body = parseInput(peopleApi.createMyKey.body, ctx.request.body);
    const projectIds = body.projectIds ? [...new Set(body.projectIds)] : null;
    projectIds?.forEach((id, i) => {
      if (!canSee(principal, id)) throw invalid(`projectIds.${i}`, `${id} is not one of your projects`);
    });
    const { id, secret, position } = await createApiKey(requestContext(app, ctx, principal), { name: body.name, access: body.access, projectIds, ownerUserId: userId });
    await app.settle(position);
    ctx.body = { key: presentApiKey((await findApiKey(app.db, id))!), secret };
  });

  route(router, peopleApi.revokeMyKey, async (ctx) => {
    const principal = principalOf(ctx);
    const key = isId(ctx.params.keyId!) ? await findApiKey(app.db, ctx.params.keyId!) : null;
    if (!key || key.owner_user_id !== personIdOf(ctx)) throw notFoundHttp('api key');
    const { position } = await revokeApiKey(requestContext(app, ctx, principal), key.id);
    await app.settle(position);
    ctx.body = { ok: true };
  });

  route(router, peopleApi.get, async (ctx) => {
    requirePeopleAdmin(principalOf(ctx), 'reading people');
    ctx.body = { user: await personOf(app, people, await activePerson(app, ctx.params.userId!)) };
  });

  route(router, peopleApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing a person’s role');
    const row = await activePerson(app, ctx.params.userId!);
    const { role } = parseInput(peopleApi.update.body, ctx.request.body);
    const { position } = await changeUserRole(requestContext(app, ctx, principal), row.id, role, await countOwners(app.db));
    await app.settle(position);
    ctx.body = { user: await personOf(app, people, await activePerson(app, row.id)) };
  });

  route(router, peopleApi.remove, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'removing a person');
    const { erase } = parseInput(peopleApi.remove.query!, ctx.query);
    const id = ctx.params.userId!;
    const row = isId(id) ? await findUser(app.db, id) : null;
    // An already removed person can still be erased.
    if (!row || (row.removed_at !== null && erase !== 'true')) throw notFoundHttp('user');
    const memberOf = (await membershipsOf(app.db, id)).map((m) => m.project_id);
    const { position } = await removePerson(requestContext(app, ctx, principal), people, id, { memberOf, owners: await countOwners(app.db), erase: erase === 'true' });
    await sessions.store.closeAllOf(id);
    await app.settle(position);
    ctx.body = { ok: true };
  });

  route(router, peopleApi.members, async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    const rows = await membersOf(app.db, project.id);
    const members = await Promise.all(
      rows.map(async (m) => {
        const person = await findUser(app.db, m.user_id);
        const view = person ? await people.view(person) : null;
        return { userId: m.user_id, name: view?.name ?? `deleted user ${m.user_id}`, email: view?.email ?? null, role: m.role };
      }),
    );
    ctx.body = { members };
  });

  route(router, peopleApi.setMember, async (ctx) => {
    const principal = writerOf(ctx);
    const project = await visibleProject(app.db, principal, { id: ctx.params.projectId! });
    requireProjectAdmin(principal, project.id, 'choosing the project’s members');
    const person = await activePerson(app, ctx.params.userId!);
    if (person.role !== 'member') throw invalid('userId', `${person.role}s have every project already`);
    const { role } = parseInput(peopleApi.setMember.body, ctx.request.body);
    const { position } = await setMember(requestContext(app, ctx, principal), project.id, person.id, role);
    await app.settle(position);
    const view = await people.view(person);
    ctx.body = { member: { userId: person.id, name: view.name, email: view.email, role } };
  });

  route(router, peopleApi.removeMember, async (ctx) => {
    const principal = writerOf(ctx);
    const project = await visibleProject(app.db, principal, { id: ctx.params.projectId! });
    requireProjectAdmin(principal, project.id, 'choosing the project’s members');
    if (!isId(ctx.params.userId!)) throw notFoundHttp('member');
    const { position } = await removeMember(requestContext(app, ctx, principal), project.id, ctx.params.userId!);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
