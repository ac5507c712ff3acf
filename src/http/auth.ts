import type { Context, Next } from 'koa';
import { findDeployment } from '../../projections/deployment-queries.js';
import { findService, type ServiceRow } from '../../projections/service-queries.js';
import { findProject, type ProjectRow } from '../../projections/project-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { clientAddressOf } from './client-address.js';
import { forbidden, HttpError, notFoundHttp, unauthorized } from './errors.js';
import type { KeyFailureLimiter } from './key-failure-limiter.js';
import type { Principal, PrincipalCache } from './principals.js';
import type { ServiceScopeCache } from './service-scope-cache.js';
import { sessionTokenOf, type SessionAuth } from './session-auth.js';

/**
 * The key is checked first, before a body is read: an anonymous request costs a header check and one
 * lookup. A valid key is answered whatever the address did before; an unknown one counts toward its
 * address's limit (401, then 429). Without an `Authorization` header, the dashboard's session cookie
 * stands for the key it was opened with.
 */
export function authenticate(keys: PrincipalCache, failures: KeyFailureLimiter, sessions: SessionAuth) {
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    if (!header && sessionTokenOf(ctx)) {
      ctx.state.principal = refuseUntilTwoFactor(ctx, await sessions.principalOf(ctx));
      return next();
    }
    const key = bearerKeyOf(ctx);
    if (!key) throw unauthorized('missing API key: send Authorization: Bearer <key>, or sign in (POST /api/sessions)');
    const principal = await keys.find(key);
    if (!principal) {
      await failures.failed(clientAddressOf(ctx), key);
      throw unauthorized('unknown or revoked API key');
    }
    ctx.state.principal = refuseUntilTwoFactor(ctx, principal);
    await next();
  };
}

/** What a person who must turn on two factors may still do: see who they are, turn them on, sign out. */
const TWO_FACTOR_SET_UP = new Set(['GET /api/users/me', 'POST /api/users/me/totp', 'POST /api/users/me/totp/confirm', 'GET /api/sessions/current', 'DELETE /api/sessions']);

/** The refusal of anything else to a person who must turn on two factors first (the Git remote's too). */
export const twoFactorSetupRequired = () =>
  new HttpError(403, 'two_factor_setup_required', 'this installation requires two factors: turn them on first (POST /api/users/me/totp)');

function refuseUntilTwoFactor(ctx: Context, principal: Principal): Principal {
  if (principal.mustSetUpTwoFactor && !TWO_FACTOR_SET_UP.has(`${ctx.method} ${ctx.path.replace(/\/+$/, '')}`)) throw twoFactorSetupRequired();
  return principal;
}

/** The key of `Authorization: Bearer <key>`, if the request sends one. */
export const bearerKeyOf = (ctx: Context): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;
export const actorOf = (principal: Principal) => principal.actor;

export function requireWrite(principal: Principal): void {
  if (principal.access !== 'write') throw forbidden(principal.userId ? 'your roles only let you read' : 'this API key is read-only');
}

/** The key of a request that writes: 403 for a read-only key; a viewer's projects are out of its reach. */
export function writerOf(ctx: Context): Principal {
  const principal = principalOf(ctx);
  requireWrite(principal);
  return writingAs(principal);
}

/**
 * The principal narrowed to the projects it may change: a member's viewer projects leave its `projectIds` (their
 * roles stay, so a write there is told 403, not 404; see `requireReach`).
 */
export function writingAs(principal: Principal): Principal {
  const roles = principal.projectRoles;
  if (!roles || ![...roles.values()].includes('viewer')) return principal;
  return { ...principal, projectIds: (principal.projectIds ?? []).filter((id) => roles.get(id) !== 'viewer') };
}

/** Whether the principal reads the project with its secrets masked: a viewer there. */
export const masksSecrets = (principal: Principal, projectId: string) => principal.projectRoles?.get(projectId) === 'viewer';

/**
 * Throws unless the principal reaches the project (`what` in it): for a write narrowed by `writingAs`, a viewer's
 * project is 403; any other project it cannot see is 404, exactly like a missing one.
 */
export function requireReach(principal: Principal, projectId: string | null | undefined, what: string): asserts projectId is string {
  if (projectId && canSee(principal, projectId)) return;
  throw projectId && masksSecrets(principal, projectId) ? forbidden('your role in this project is viewer: it reads, with secrets masked') : notFoundHttp(what);
}

export function requireAllProjects(principal: Principal, what: string): void {
  if (principal.projectIds !== null) throw forbidden(principal.userId ? `${what} is for the installation's owners and admins` : `${what} needs an all-project API key`);
}

/** The installation itself (people, keys, settings, providers, the cluster): an all-project key or an owner. */
export function requireInstallation(principal: Principal, what: string): void {
  requireAllProjects(principal, what);
  if (principal.role !== null && principal.role !== 'owner') throw forbidden(`${what} is for the installation's owners`);
}

/** Shaping a project (its services, its deletion, its members): not for a member who only deploys it. */
export function requireProjectAdmin(principal: Principal, projectId: string, what: string): void {
  const role = principal.projectRoles?.get(projectId);
  if (principal.projectRoles !== null && role !== 'admin') throw forbidden(`${what} needs the project's admin role (yours: ${role ?? 'none'})`);
}

export function canSee(principal: Principal, projectId: string): boolean {
  return principal.projectIds === null || principal.projectIds.includes(projectId);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isId = (value: string) => UUID.test(value);

/** An invisible project answers exactly like a missing one (a viewer's, to a write, 403). */
export async function visibleProject(db: SqlExecutor, principal: Principal, by: { id: string } | { slug: string }): Promise<ProjectRow> {
  if ('id' in by && !isId(by.id)) throw notFoundHttp('project');
  const project = await findProject(db, by);
  if (!project) throw notFoundHttp('project');
  requireReach(principal, project.id, 'project');
  return project;
}

/** The id of a service the principal may see, for routes that need nothing else of it (one small read). */
export async function visibleServiceId(scopes: ServiceScopeCache, principal: Principal, id: string): Promise<string> {
  const projectId = isId(id) ? await scopes.projectOfService(id) : null;
  requireReach(principal, projectId, 'service');
  return id;
}

export async function visibleService(db: SqlExecutor, principal: Principal, id: string): Promise<ServiceRow> {
  const service = isId(id) ? await findService(db, id) : null;
  if (!service) throw notFoundHttp('service');
  requireReach(principal, service.project_id, 'service');
  return service;
}

/** A deployment is visible through its service's current project (services move between projects). */
export async function visibleDeployment(db: SqlExecutor, principal: Principal, id: string) {
  const deployment = isId(id) ? await findDeployment(db, id) : null;
  const service = deployment ? await findService(db, deployment.service_id) : null;
  if (!deployment || !service) throw notFoundHttp('deployment');
  requireReach(principal, service.project_id, 'deployment');
  return { deployment, service };
}
