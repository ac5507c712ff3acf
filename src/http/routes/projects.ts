import type Router from '@koa/router';
import { createProject, deleteProject, updateProject } from '../../../commands/project/handlers.js';
import { ENGINE_CATALOGUE } from '../../../commands/service/engines.js';
import type { Engine } from '../../shared/database-engine.js';
import { findProject } from '../../../projections/project-queries.js';
import { listServicesOf, type ServiceRow } from '../../../projections/service-queries.js';
import type { Slipway } from '../../slipway.js';
import { referenceTo } from '../../variables/references.js';
import { referenceEdges } from '../../variables/reference-edges.js';
import { loadProjectVariables } from '../../variables/project-variables.js';
import { isId, principalOf, requireAllProjects, requireProjectAdmin, visibleProject, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { presentProject } from '../presenters.js';
import { ProjectListCache } from '../project-list-cache.js';
import { currentPublicAddress } from '../../proxy/public-url.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { projectsApi } from '../contract/projects.js';
import { retirementDeps } from '../../processes/retirement.js';


export async function projectWithServices(app: Slipway, id: string, includeServices = true) {
  const row = await findProject(app.db, { id });
  if (!row) throw notFoundHttp('project');
  return presentProject(row, await listServicesOf(app.db, [id]), await currentPublicAddress(app), includeServices);
}

export function databaseSuggestions(services: readonly ServiceRow[], except?: string) {
  return services
    .filter((s) => s.kind === 'database' && s.database_engine && s.id !== except)
    .map((s) => {
      const spec = ENGINE_CATALOGUE[s.database_engine as Engine];
      return { key: spec.urlVariable, value: referenceTo(s.slug, spec.urlVariable), label: `${s.name} (${spec.label}) connection URL` };
    });
}

export function projectRoutes(router: Router, app: Slipway) {
  const list = new ProjectListCache(app.db, app.runner, () => currentPublicAddress(app));
  route(router, projectsApi.list, async (ctx) => {
    ctx.type = 'application/json';
    ctx.body = await list.render(principalOf(ctx).projectIds);
  });

  route(router, projectsApi.create, async (ctx) => {
    const principal = writerOf(ctx);
    requireAllProjects(principal, 'creating a project');
    const body = parseInput(projectsApi.create.body, ctx.request.body);
    const { id, position } = await createProject(requestContext(app, ctx, principal), body);
    await app.settle(position);
    ctx.body = { project: await projectWithServices(app, id) };
  });

  route(router, projectsApi.get, async (ctx) => {
    // The slug, as the spec has it; an id is accepted too.
    const key = ctx.params.projectSlug!;
    const principal = principalOf(ctx);
    const project = isId(key)
      ? await visibleProject(app.db, principal, { id: key }).catch(() => visibleProject(app.db, principal, { slug: key }))
      : await visibleProject(app.db, principal, { slug: key });
    ctx.body = { project: await projectWithServices(app, project.id) };
  });

  route(router, projectsApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    const project = await visibleProject(app.db, principal, { id: ctx.params.projectId! });
    requireProjectAdmin(principal, project.id, 'renaming the project');
    const body = parseInput(projectsApi.update.body, ctx.request.body);
    const { position } = await updateProject(requestContext(app, ctx, principal), project.id, body);
    await app.settle(position);
    ctx.body = { project: await projectWithServices(app, project.id) };
  });

  route(router, projectsApi.delete, async (ctx) => {
    const principal = writerOf(ctx);
    const project = await visibleProject(app.db, principal, { id: ctx.params.projectId! });
    requireProjectAdmin(principal, project.id, 'deleting the project');
    const { position } = await deleteProject(requestContext(app, ctx, principal), retirementDeps(app), project.id);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  route(router, projectsApi.databaseVariableSuggestions, async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    ctx.body = { suggestions: databaseSuggestions(await listServicesOf(app.db, [project.id])) };
  });

  route(router, projectsApi.references, async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    const variables = await loadProjectVariables(app.db, app.keyring, project.id);
    const services = variables.services.map((s) => ({ ...s, variables: variables.variablesOf(s.id).map(({ row, value }) => ({ key: row.key, value })) }));
    ctx.body = { references: referenceEdges(services) };
  });
}
