import type Router from '@koa/router';
import type { z } from 'zod';
import { IMPORT_SOURCES } from '../../../commands/import/events.js';
import type { Engine } from '../../shared/database-engine.js';
import { requestImport } from '../../../commands/import/handlers.js';
import { conflict, invalid } from '../../../commands/shared/domain-error.js';
import { findImport, findUnfinishedImport, listImportsOf, type ImportRow } from '../../../projections/import-queries.js';
import { sourceLabelOf, sourcePartsOf, vetSource } from '../../engines/import-sources.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireProjectAdmin, visibleService, writerOf } from '../auth.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { iso } from '../presenters.js';
import { route } from '../contract/endpoint.js';
import { dataImport, importEndpoints, importsApi, SOURCES } from '../contract/imports.js';

const presentImport = (i: ImportRow): z.infer<typeof dataImport> => ({
  id: i.id,
  serviceId: i.service_id,
  engine: i.engine as Engine,
  source: i.source,
  sourceLabel: i.source_label,
  status: i.status,
  error: i.error,
  createdAt: new Date(i.created_at).toISOString(),
  startedAt: new Date(i.started_at).toISOString(),
  finishedAt: iso(i.finished_at),
});

/** Imports of data from a URL into a database service; the URL's password is never shown or logged. */
export function importRoutes(router: Router, app: Slipway) {
  route(router, importsApi.list, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    if (row.kind !== 'database') throw invalid('serviceId', 'this service is not a database service');
    ctx.body = { imports: (await listImportsOf(app.db, row.id)).map(presentImport) };
  });

  for (const source of IMPORT_SOURCES) {
    const endpoint = importEndpoints[source];
    route(router, endpoint, async (ctx) => {
      const principal = writerOf(ctx);
      const row = await visibleService(app.db, principal, ctx.params.serviceId!);
      requireProjectAdmin(principal, row.project_id, 'importing into a database');
      if (row.kind !== 'database' || !row.database_engine) throw invalid('serviceId', 'this service is not a database service');
      const { sourceUrl } = parseInput(endpoint.body, ctx.request.body ?? {});
      if (!SOURCES[source].engines.includes(row.database_engine)) throw invalid('serviceId', `a ${source} import goes into a ${SOURCES[source].engines.join(' or ')} service, not ${row.database_engine}`);
      if (!row.current_container) throw conflict('the database is not running: deploy it first');
      const { host, port } = sourcePartsOf(source, sourceUrl);
      await vetSource(app, row.project_id, host, port);
      const { id } = await requestImport(
        requestContext(app, ctx, principal),
        { unfinishedImportOf: (serviceId) => findUnfinishedImport(app.db, serviceId), settle: (position) => app.settle(position) },
        { serviceId: row.id, projectId: row.project_id, engine: row.database_engine, source, sourceLabel: sourceLabelOf(sourceUrl) },
        sourceUrl,
      );
      const found = (await findImport(app.db, id))!;
      ctx.body = { result: { id, status: found.status, source, createdAt: iso(found.created_at) } };
    });
  }
}
