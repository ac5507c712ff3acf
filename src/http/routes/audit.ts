import type Router from '@koa/router';
import { listAuditEvents } from '../../../projections/audit-queries.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireAllProjects, visibleProject } from '../auth.js';
import { presentAuditEvent } from '../presenters.js';
import { route } from '../contract/endpoint.js';
import { auditApi, auditQuery } from '../contract/audit.js';
import { parseInput } from '../validation.js';

async function page(app: Slipway, query: unknown, projectId?: string) {
  const { after, limit, order, stream, correlationId, actor, type, excludeType } = parseInput(auditQuery, query);
  const rows = await listAuditEvents(app.db, {
    after: after || null,
    limit,
    order,
    ...(projectId ? { projectId } : {}),
    ...(stream ? { stream } : {}),
    ...(correlationId ? { correlationId } : {}),
    ...(actor ? { actor } : {}),
    ...(type ? { type } : {}),
    ...(excludeType ? { excludeType } : {}),
  });
  return { events: rows.map(presentAuditEvent), next: rows.length === limit ? rows[rows.length - 1]!.position : null };
}

export function auditRoutes(router: Router, app: Slipway) {
  route(router, auditApi.all, async (ctx) => {
    requireAllProjects(principalOf(ctx), 'the platform-wide event history');
    ctx.body = await page(app, ctx.query);
  });

  route(router, auditApi.ofProject, async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    ctx.body = await page(app, ctx.query, project.id);
  });
}
