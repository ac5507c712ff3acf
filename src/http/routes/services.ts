import type Router from '@koa/router';
import { createService, deleteService, stopService, transferService, updateService } from '../../../commands/service/handlers.js';
import { findDeployment, listDeploymentsOf } from '../../../projections/deployment-queries.js';
import { rerunCurrentRelease } from '../../../commands/release/handlers.js';
import { latest } from '../../../commands/shared/execute.js';
import { findService, listDomainsOf } from '../../../projections/service-queries.js';
import { findCluster } from '../../../projections/cluster-queries.js';
import { conflict } from '../../../commands/shared/domain-error.js';
import type { Slipway } from '../../slipway.js';
import { loadProjectVariables } from '../../variables/project-variables.js';
import { masksSecrets, principalOf, requireProjectAdmin, visibleProject, visibleService, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { notFoundHttp } from '../errors.js';
import { issuesCertificates } from '../../installation-settings.js';
import { currentPublicAddress, publicAddressOf } from '../../proxy/public-url.js';
import { iso, presentDomain, presentService } from '../presenters.js';
import { presentDeployments, presentOneDeployment } from '../deployment-answers.js';
import { parseCreateService, vetServiceChanges, vetServiceSource } from '../service-bodies.js';
import { parseInput } from '../validation.js';
import { databaseSuggestions, projectWithServices } from './projects.js';
import { route } from '../contract/endpoint.js';
import { requireNodeForDatabase } from '../node-choice.js';
import { servicesApi } from '../contract/services.js';
import { retirementDeps } from '../../processes/retirement.js';
import { effectiveResources } from '../../../commands/service/resources.js';

async function presentServiceById(app: Slipway, id: string) {
  const row = await findService(app.db, id);
  if (!row) throw notFoundHttp('service');
  return presentService(row, await currentPublicAddress(app));
}

/** Settings that change how the current release runs, applied at once by a deployment of kind `config`. */
const RUN_SETTINGS = new Set(['resources', 'healthCheck']);
/** In cluster mode, also where and how many times it runs. */
const CLUSTER_RUN_SETTINGS = new Set([...RUN_SETTINGS, 'replicas', 'nodeLabels']);

/** More than one task, or a choice of nodes, means nothing on a single server: refused rather than ignored. */
async function requirePlacementFits(app: Slipway, placement: { replicas?: number; nodeLabels?: Record<string, string> }): Promise<boolean> {
  const cluster = (await findCluster(app.db)) !== null;
  const wantsCluster = (placement.replicas ?? 1) > 1 || Object.keys(placement.nodeLabels ?? {}).length > 0;
  if (wantsCluster && !cluster) throw conflict('replicas above 1 and nodeLabels need a cluster: run `slipway cluster init` (POST /api/cluster) first');
  return cluster;
}

export function serviceRoutes(router: Router, app: Slipway) {
  route(router, servicesApi.create, async (ctx) => {
    const principal = writerOf(ctx);
    const project = await visibleProject(app.db, principal, { id: ctx.params.projectId! });
    requireProjectAdmin(principal, project.id, 'creating a service');
    const input = parseCreateService(ctx.request.body, app.config.gitBaseUrl);
    await requirePlacementFits(app, input);
    if (input.nodeId) await requireNodeForDatabase(app, input.nodeId);
    await vetServiceSource(app.outbound, input);
    const { id, position } = await createService(requestContext(app, ctx, principal), app.serviceDeps, project.id, input);
    await app.settle(position);
    ctx.body = { service: await presentServiceById(app, id) };
  });

  route(router, servicesApi.get, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    ctx.body = { service: presentService(service, await currentPublicAddress(app)) };
  });

  route(router, servicesApi.overview, async (ctx) => {
    const principal = principalOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const masked = masksSecrets(principal, service.project_id);
    // From the sampler, which may wait a moment for a container's first reading: asked first, read last.
    const usage = app.usage.ofService(service);
    const variables = await loadProjectVariables(app.db, app.keyring, service.project_id);
    const env = variables.variablesOf(service.id).map(({ row, value }) => ({
      id: row.id,
      key: row.key,
      hasValue: value !== '',
      masked,
      value: masked ? '' : value,
      resolvedValue: masked ? '' : variables.resolve(value),
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    }));
    const settings = await app.settings();
    const domains = (await listDomainsOf(app.db, service.id)).map((d) => presentDomain(d, issuesCertificates(app, settings)));
    const deployments = await presentDeployments(app.db, await listDeploymentsOf(app.db, service.id, 20));
    ctx.body = {
      service: presentService(service, publicAddressOf(app.config, settings)),
      deployments,
      env,
      domains,
      publicIp: settings.publicIp,
      resources: effectiveResources(service.resources, settings.defaultResources),
      usage: await usage,
    };
  });

  route(router, servicesApi.update, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const changes = parseInput(servicesApi.update.body, ctx.request.body);
    const cluster = await requirePlacementFits(app, changes);
    await vetServiceChanges(app.outbound, changes);
    const cmd = requestContext(app, ctx, principal);
    const updated = await updateService(cmd, service.id, changes);
    // Limits and health checks change how the current release runs: it is re-created without a build.
    const changed = updated.events[0]?.type === 'ServiceUpdated' ? Object.keys(updated.events[0].data.changes) : [];
    const rerun = changed.some((key) => (cluster ? CLUSTER_RUN_SETTINGS : RUN_SETTINGS).has(key)) && service.current_deployment_id !== null;
    const queued = rerun ? await rerunCurrentRelease(cmd, service.id, 'config') : null;
    await app.settle(latest(updated.position, queued?.position ?? null));
    const row = queued ? await findDeployment(app.db, queued.id) : null;
    ctx.body = { service: await presentServiceById(app, service.id), deployment: row ? await presentOneDeployment(app.db, row, { queued: true }) : null };
  });

  route(router, servicesApi.transfer, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { targetProjectId } = parseInput(servicesApi.transfer.body, ctx.request.body);
    const target = await visibleProject(app.db, principal, { id: targetProjectId });
    requireProjectAdmin(principal, service.project_id, 'moving a service out of its project');
    requireProjectAdmin(principal, target.id, 'moving a service into a project');
    const { position } = await transferService(requestContext(app, ctx, principal), service.id, target.id);
    const proxy = await app.proxy.sync(position);
    const moved = await presentServiceById(app, service.id);
    const project = await projectWithServices(app, target.id);
    ctx.body = {
      service: { id: moved.id, projectId: moved.projectId, name: moved.name, slug: moved.slug },
      project: { id: project.id, name: project.name, slug: project.slug, serviceCount: project.serviceCount, services: project.services },
      proxy,
    };
  });

  route(router, servicesApi.delete, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    requireProjectAdmin(principal, service.project_id, 'deleting a service');
    const { position } = await deleteService(requestContext(app, ctx, principal), retirementDeps(app), service.id);
    ctx.body = { ok: true, proxy: await app.proxy.sync(position) };
  });

  route(router, servicesApi.stop, async (ctx) => {
    const principal = writerOf(ctx);
    const service = await visibleService(app.db, principal, ctx.params.serviceId!);
    const { position } = await stopService(requestContext(app, ctx, principal), service.id);
    const proxy = await app.proxy.sync(position);
    ctx.body = { service: await presentServiceById(app, service.id), proxy };
  });

  route(router, servicesApi.suggestionKeys, async (ctx) => {
    const service = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const variables = await loadProjectVariables(app.db, app.keyring, service.project_id);
    const others = variables.services.filter((s) => s.id !== service.id);
    ctx.body = {
      suggestions: [
        { key: 'PORT', label: `PORT: the port this service listens on (${service.internal_port}; host port ${service.host_port})` },
        ...others.flatMap((s) =>
          variables.variablesOf(s.id).map(({ row }) => ({ key: `${s.slug}.${row.key}`, label: `${row.key} from ${s.name}` })),
        ),
      ],
      databaseVariables: databaseSuggestions(variables.services, service.id),
    };
  });
}
