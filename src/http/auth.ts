import type { Context, Next } from 'koa';
import { findDeployment } from '../../projections/deployment-queries.js';
import { findService, type ServiceRow } from '../../projections/service-queries.js';
import { findProject, type ProjectRow } from '../../projections/project-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { clientAddressOf } from './client-address.js';
import { forbidden, notFoundHttp, unauthorized } from './errors.js';
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
      ctx.state.principal = await sessions.principalOf(ctx);
      return next();
    }
    const key = bearerKeyOf(ctx);
    if (!key) throw unauthorized('missing API key: send Authorization: Bearer <key>, or sign in (POST /api/sessions)');
    const principal = await keys.find(key);
    if (!principal) {
      await failures.failed(clientAddressOf(ctx), key);
      throw unauthorized('unknown or revoked API key');
    }
    ctx.state.principal = principal;
    await next();
  };
}

/** The key of `Authorization: Bearer <key>`, if the request sends one. */
export const bearerKeyOf = (ctx: Context): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;
export const actorOf = (principal: Principal) => principal.actor;

export function requireWrite(principal: Principal): void {
  if (principal.access !== 'write') throw forbidden(principal.userId ? 'your roles only let you read' : 'this API key is read-only');
}

/** The key of a request that writes: 403 for a read-only key. */
export function writerOf(ctx: Context): Principal {
  const principal = principalOf(ctx);
  requireWrite(principal);
  return principal;
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

/** An invisible project answers exactly like a missing one. */
export async function visibleProject(db: SqlExecutor, principal: Principal, by: { id: string } | { slug: string }): Promise<ProjectRow> {
  if ('id' in by && !isId(by.id)) throw notFoundHttp('project');
  const project = await findProject(db, by);
  if (!project || !canSee(principal, project.id)) throw notFoundHttp('project');
  return project;
}

/** The id of a service the principal may see, for routes that need nothing else of it (one small read). */
export async function visibleServiceId(scopes: ServiceScopeCache, principal: Principal, id: string): Promise<string> {
  const projectId = isId(id) ? await scopes.projectOfService(id) : null;
  if (!projectId || !canSee(principal, projectId)) throw notFoundHttp('service');
  return id;
}

export async function visibleService(db: SqlExecutor, principal: Principal, id: string): Promise<ServiceRow> {
  const service = isId(id) ? await findService(db, id) : null;
  if (!service || !canSee(principal, service.project_id)) throw notFoundHttp('service');
  return service;
}

/** A deployment is visible through its service's current project (services move between projects). */
export async function visibleDeployment(db: SqlExecutor, principal: Principal, id: string) {
  const deployment = isId(id) ? await findDeployment(db, id) : null;
  const service = deployment ? await findService(db, deployment.service_id) : null;
  if (!deployment || !service || !canSee(principal, service.project_id)) throw notFoundHttp('deployment');
  return { deployment, service };
}
