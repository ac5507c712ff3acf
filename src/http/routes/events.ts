import type Router from '@koa/router';
import { z } from 'zod';
import { listAuditEvents } from '../../../projections/audit-queries.js';
import type { Slipway } from '../../slipway.js';
import { isPosition } from '../../eventstore/position.js';
import { principalOf, requireAllProjects, visibleProject } from '../auth.js';
import { presentAuditEvent } from '../presenters.js';
import { parseInput } from '../validation.js';

const pageQuery = z.object({
  after: z
    .string()
    .optional()
    .refine((a) => a === undefined || a === '' || isPosition(a), 'must be a position returned as next'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  stream: z.string().max(200).optional(),
  correlationId: z.string().max(200).optional(),
});

async function page(app: Slipway, query: unknown, projectId?: string) {
  const { after, limit, stream, correlationId } = parseInput(pageQuery, query);
  const rows = await listAuditEvents(app.db, {
    after: after || null,
    limit,
    ...(projectId ? { projectId } : {}),
    ...(stream ? { stream } : {}),
    ...(correlationId ? { correlationId } : {}),
  });
  return { events: rows.map(presentAuditEvent), next: rows.length === limit ? rows[rows.length - 1]!.position : null };
}

export function eventRoutes(router: Router, app: Slipway) {
  router.get('/api/events', async (ctx) => {
    requireAllProjects(principalOf(ctx), 'the platform-wide event history');
    ctx.body = await page(app, ctx.query);
  });

  router.get('/api/projects/:projectId/events', async (ctx) => {
    const project = await visibleProject(app.db, principalOf(ctx), { id: ctx.params.projectId! });
    ctx.body = await page(app, ctx.query, project.id);
  });
}
