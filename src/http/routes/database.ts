import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { queryRunEvent, recordDatabaseOperation } from '../../../commands/database/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import type { DatabaseEvent } from '../../../commands/database/events.js';
import type { Engine } from '../../shared/database-engine.js';
import { conflict, invalid } from '../../../commands/shared/domain-error.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import type { DatabaseBrowser } from '../../engines/browser.js';
import type { BrowserTarget } from '../../engines/browser-pool.js';
import { endpointOf } from '../../engines/engine-plans.js';
import type { Slipway } from '../../slipway.js';
import { resolvedVariablesOf } from '../../variables/project-variables.js';
import { isId, principalOf, requireReach, visibleService, writerOf } from '../auth.js';
import type { Principal } from '../principals.js';
import { notFoundHttp } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { route } from '../contract/endpoint.js';
import { databaseApi } from '../contract/database.js';

/** The JSON answer an endpoint documents. */
type Answer<E extends { response: z.ZodType }> = z.output<E['response']>;

const POSTGRES_LIKE: readonly string[] = ['postgres', 'timeseries'];

function databaseOf(row: ServiceRow): Engine {
  if (row.kind !== 'database' || !row.database_engine) throw invalid('serviceId', 'this service is not a database service');
  return row.database_engine as Engine;
}

/** Where Slipway connects to a running database service, as whom, and over which TLS. */
async function targetOf(app: Slipway, row: ServiceRow): Promise<BrowserTarget> {
  const engine = databaseOf(row);
  if (!row.current_container || !row.current_deployment_id) throw conflict('the database is not running: deploy it first');
  const env = await resolvedVariablesOf(app.db, app.keyring, row);
  const ca = POSTGRES_LIKE.includes(engine) ? await app.certificates.trustedAuthority(row) : null;
  return { serviceId: row.id, engine, deploymentId: row.current_deployment_id, endpoint: endpointOf(engine, env, await app.nodes.port(row.node_id, row.host_port), ca) };
}

async function resolveService(app: Slipway, principal: Principal, serviceId: string) {
  const row = await visibleService(app.db, principal, serviceId);
  return { row, target: await targetOf(app, row) };
}

export function databaseRoutes(router: Router, app: Slipway) {
  /** Runs `work` on the service's browser, after recording `audit` (if any) for auditors. */
  async function withBrowser<T>(
    ctx: Context,
    principal: Principal,
    audit: ((row: ServiceRow, engine: Engine, cmd: CommandContext) => DatabaseEvent | Promise<DatabaseEvent>) | null,
    work: (browser: DatabaseBrowser, row: ServiceRow) => Promise<T>,
  ): Promise<T> {
    const serviceId = ctx.params.serviceId!;
    const resolved = isId(serviceId) ? await app.databases.resolve(serviceId, () => resolveService(app, principal, serviceId)) : null;
    if (!resolved) throw notFoundHttp('service');
    requireReach(principal, resolved.row.project_id, 'service');
    const { row, target } = resolved;
    if (audit) {
      const cmd = requestContext(app, ctx, principal);
      await recordDatabaseOperation(cmd, await audit(row, target.engine, cmd));
    }
    return app.databases.use(target, (browser) => work(browser, row));
  }

  const about = (row: ServiceRow, engine: Engine) => ({ serviceId: row.id, projectId: row.project_id, engine });

  route(router, databaseApi.tables, async (ctx) => {
    const { database } = parseInput(databaseApi.tables.query, ctx.query);
    ctx.body = await withBrowser(ctx, principalOf(ctx), null, async (browser): Promise<Answer<typeof databaseApi.tables>> => ({
      engine: browser.engine,
      tables: await browser.tables(database === undefined ? {} : { database }),
    }));
  });

  route(router, databaseApi.rows, async (ctx) => {
    const { table, limit, offset } = parseInput(databaseApi.rows.query, ctx.query);
    ctx.body = await withBrowser(ctx, principalOf(ctx), null, async (browser): Promise<Answer<typeof databaseApi.rows>> => {
      const page = await browser.rows(table, { limit, offset });
      return { engine: browser.engine, table, columns: page.columns, rows: page.rows, limit, offset, total: page.total };
    });
  });

  route(router, databaseApi.query, async (ctx) => {
    const principal = writerOf(ctx);
    const { sql } = parseInput(databaseApi.query.body, ctx.request.body);
    const result = await withBrowser(
      ctx,
      principal,
      (row, engine, cmd) => queryRunEvent(cmd, about(row, engine), sql),
      (browser) => browser.query(sql, app.config.databases.query),
    );
    const answer: Answer<typeof databaseApi.query> = { columns: result.columns, rows: result.rows, rowCount: result.rowCount, truncated: result.truncated };
    ctx.body = answer;
  });

  route(router, databaseApi.insertRow, async (ctx) => {
    const principal = writerOf(ctx);
    const body = parseInput(databaseApi.insertRow.body, ctx.request.body);
    const { id } = await withBrowser(
      ctx,
      principal,
      (row, engine) => ({ type: 'DatabaseRowInserted', data: { ...about(row, engine), table: body.table, primaryKey: null, columns: Object.keys(body.values) } }),
      (browser) => browser.insertRow(body.table, body.values),
    );
    ctx.body = { ok: true, table: body.table, id };
  });

  route(router, databaseApi.updateRow, async (ctx) => {
    const principal = writerOf(ctx);
    const body = parseInput(databaseApi.updateRow.body, ctx.request.body);
    await withBrowser(
      ctx,
      principal,
      (row, engine) => ({ type: 'DatabaseRowUpdated', data: { ...about(row, engine), table: body.table, primaryKey: body.primaryKey, columns: Object.keys(body.values) } }),
      (browser) => browser.updateRow(body.table, body.primaryKey, body.values),
    );
    ctx.body = { ok: true };
  });

  route(router, databaseApi.deleteRow, async (ctx) => {
    const principal = writerOf(ctx);
    const body = parseInput(databaseApi.deleteRow.body, ctx.request.body);
    await withBrowser(
      ctx,
      principal,
      (row, engine) => ({ type: 'DatabaseRowDeleted', data: { ...about(row, engine), table: body.table, primaryKey: body.primaryKey, columns: [] } }),
      (browser) => browser.deleteRow(body.table, body.primaryKey),
    );
    ctx.body = { ok: true };
  });

  route(router, databaseApi.tls, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const engine = databaseOf(row);
    if (!POSTGRES_LIKE.includes(engine)) throw invalid('serviceId', `TLS is offered for postgres and timeseries services; this one is ${engine}`);
    ctx.body = { tls: await app.certificates.tlsInfo(row) };
  });

  route(router, databaseApi.tlsAuthority, async (ctx) => {
    const row = await visibleService(app.db, principalOf(ctx), ctx.params.serviceId!);
    const engine = databaseOf(row);
    if (!POSTGRES_LIKE.includes(engine)) throw invalid('serviceId', `TLS is offered for postgres and timeseries services; this one is ${engine}`);
    const pem = await app.certificates.authorityPem();
    if (!pem) throw conflict('no certificate authority exists yet: it is created at the first deployment of a Postgres service');
    ctx.type = 'application/x-pem-file';
    ctx.attachment('slipway-ca.pem');
    ctx.body = pem;
  });
}
