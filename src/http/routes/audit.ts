import type Router from '@koa/router';
import { listAuditEvents, type AuditRow } from '../../../projections/audit-queries.js';
import { findUser } from '../../../projections/people-queries.js';
import type { People } from '../../people/people.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireAllProjects, visibleProject } from '../auth.js';
import { presentAuditEvent } from '../presenters.js';
import { route } from '../contract/endpoint.js';
import { auditApi, auditQuery } from '../contract/audit.js';
import { parseInput } from '../validation.js';

/** A person's display name for each `user:<id>` actor of the page: names are sealed, so they are opened here. */
async function withPeopleNames(app: Slipway, people: People, rows: AuditRow[]): Promise<AuditRow[]> {
  const ids = [...new Set(rows.filter((r) => r.actor.startsWith('user:')).map((r) => r.actor.slice('user:'.length)))];
  if (ids.length === 0) return rows;
  const names = new Map<string, string>();
  for (const id of ids) {
    const row = await findUser(app.db, id);
    names.set(id, row ? (await people.view(row)).name : `deleted user ${id}`);
  }
  return rows.map((r) => (r.actor.startsWith('user:') ? { ...r, actor_name: names.get(r.actor.slice('user:'.length)) ?? null } : r));
}

async function page(app: Slipway, people: People, query: unknown, projectId?: string) {
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
  return { events: (await withPeopleNames(app, people, rows)).map(presentAuditEvent), next: rows.length === limit ? rows[rows.length - 1]!.position : null };
}

export function auditRoutes(router: Router, app: Slipway, people: People) {
  route(router, auditApi.all, async (ctx) => {
    requireAllProjects(principalOf(ctx), 'the platform-wide event history');
    ctx.body = await page(app, people, ctx.query);
  });

  route(router, auditApi.ofProject, async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    ctx.body = await page(app, people, ctx.query, project.id);
  });
}
