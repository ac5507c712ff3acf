import type Router from '@koa/router';
import { z } from 'zod';
import { IMPORT_SOURCES, type ImportSource } from '../../../commands/import/events.js';
import { requestImport } from '../../../commands/import/handlers.js';
import { conflict, invalid } from '../../../commands/shared/domain-error.js';
import { findImport, listImportsOf, type ImportRow } from '../../../projections/import-queries.js';
import { sourceLabelOf } from '../../engines/import-sources.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, visibleService, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

const SCHEMES: Record<ImportSource, { schemes: string[]; engines: string[] }> = {
  'postgres-url': { schemes: ['postgres:', 'postgresql:'], engines: ['postgres', 'timeseries'] },
  'redis-url': { schemes: ['redis:', 'rediss:'], engines: ['redis'] },
};

const bodyFor = (source: ImportSource) =>
  z.object({
    sourceUrl: z
      .string()
      .max(4096)
      .refine((value) => {
        try {
          const url = new URL(value);
          return SCHEMES[source].schemes.includes(url.protocol) && url.hostname !== '';
        } catch {
          return false;
        }
      }, `must be a ${SCHEMES[source].schemes.map((s) => `${s}//`).join(' or ')} URL with a host`),
  });

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

const presentImport = (i: ImportRow) => ({
  id: i.id,
  serviceId: i.service_id,
  engine: i.engine,
  source: i.source,
  sourceLabel: i.source_label,
  status: i.status,
  error: i.error,
  createdAt: iso(i.created_at),
  startedAt: iso(i.started_at),
  finishedAt: iso(i.finished_at),
});

/** Imports of data from a URL into a database service; the URL's password is never shown or logged. */
export function importRoutes(router: Router, app: Slipway) {
  const base = '/api/services/:serviceId/database';

  router.get(`${base}/imports`, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    if (row.kind !== 'database') throw invalid('serviceId', 'this service is not a database service');
    ctx.body = { imports: (await listImportsOf(app.db, row.id)).map(presentImport) };
  });

  for (const source of IMPORT_SOURCES) {
    router.post(`${base}/import/${source}`, async (ctx) => {
      const principal = writerOf(ctx);
      const row = await visibleService(app.db, principal, ctx.params.serviceId!);
      if (row.kind !== 'database' || !row.database_engine) throw invalid('serviceId', 'this service is not a database service');
      const { sourceUrl } = parseInput(bodyFor(source), ctx.request.body ?? {});
      if (!SCHEMES[source].engines.includes(row.database_engine)) throw invalid('serviceId', `a ${source} import goes into a ${SCHEMES[source].engines.join(' or ')} service, not ${row.database_engine}`);
      if (!row.current_container) throw conflict('the database is not running: deploy it first');
      const { id, position } = await requestImport(
        requestContext(app, ctx, principal),
        { serviceId: row.id, projectId: row.project_id, engine: row.database_engine, source, sourceLabel: sourceLabelOf(sourceUrl) },
        sourceUrl,
      );
      await app.settle(position);
      const found = (await findImport(app.db, id))!;
      ctx.body = { result: { id, status: found.status, source, createdAt: iso(found.created_at) } };
    });
  }
}
