import type Router from '@koa/router';
import type { Context } from 'koa';
import { lastChangePosition, listChanges, type ChangeRow } from '../../../projections/change-queries.js';
import type { Slipway } from '../../slipway.js';
import { bearerKeyOf, canSee, principalOf, visibleProject } from '../auth.js';
import { HttpError } from '../errors.js';
import type { ChangeFeed, ChangeNews } from '../change-feed.js';
import { changesApi } from '../contract/changes.js';
import { route } from '../contract/endpoint.js';
import type { Principal, PrincipalCache } from '../principals.js';
import { presentChange } from '../presenters.js';
import type { SessionAuth } from '../session-auth.js';
import { openSse } from '../sse.js';
import { parseInput } from '../validation.js';

/** More missed than this and the client is told to reload everything instead. */
const CATCH_UP_LIMIT = 1_000;
const KEEP_ALIVE_MS = 25_000;
/** Open feeds per key: a dashboard holds one per tab; a hostile key cannot hold the server's sockets. */
const FEEDS_PER_KEY = 20;

/**
 * Whether the request's credential still stands: its session (not counted as use, so an open feed does not
 * keep an idle session alive) or its key. Asked before each batch of changes is told (one lookup): a quiet feed costs nothing.
 */
function standingOf(ctx: Context, principal: Principal, credentials: { keys: PrincipalCache; sessions: SessionAuth }) {
  const session = ctx.state.session as { token: string } | undefined;
  const key = bearerKeyOf(ctx);
  return async (): Promise<boolean> => {
    const now = session ? await credentials.sessions.standing(session.token) : key ? await credentials.keys.find(key) : null;
    // A person whose projects changed reconnects with their rights now.
    return now?.actor === principal.actor && String(now.projectIds) === String(principal.projectIds);
  };
}

export function changeRoutes(router: Router, app: Slipway, feed: ChangeFeed, credentials: { keys: PrincipalCache; sessions: SessionAuth }) {
  const openFeeds = new Map<string, number>();
  route(router, changesApi.stream, async (ctx) => {
    const principal = principalOf(ctx);
    const query = parseInput(changesApi.stream.query, ctx.query);
    const headers = parseInput(changesApi.stream.headers, { 'Last-Event-ID': ctx.get('last-event-id') || undefined });
    const project = query.project ? await visibleProject(app.db, principal, { id: query.project }) : null;
    const resumeFrom = headers['Last-Event-ID'] ?? query.after ?? null;
    const stands = standingOf(ctx, principal, credentials);
    // A service that moved away is told to the project it left too; the installation's own changes only to all-project keys.
    const inView = (row: ChangeRow) =>
      row.project_id === null
        ? project === null && principal.projectIds === null
        : [row.project_id, row.previous_project_id].some((p) => p !== null && canSee(principal, p) && (project === null || p === project.id));

    const open = openFeeds.get(principal.actor) ?? 0;
    if (open >= FEEDS_PER_KEY) throw new HttpError(429, 'rate_limited', `this key already has ${FEEDS_PER_KEY} change feeds open: close one first`);
    openFeeds.set(principal.actor, open + 1);

    const sse = openSse(ctx);
    sse.retry(1_000);
    let last: string | null = null;
    const tell = (rows: readonly ChangeRow[]) => {
      for (const row of rows) {
        if (last !== null && row.position <= last) continue;
        last = row.position;
        if (inView(row)) sse.send('change', presentChange(row), row.position);
      }
    };
    const hear = async (news: ChangeNews) => {
      if (sse.closed) return;
      if (!(await stands())) {
        sse.send('end', { reason: 'the session or API key no longer stands: sign in again' });
        return sse.close();
      }
      if ('reset' in news) sse.send('reset', { reason: news.reset });
      else tell(news.changes);
    };
    // What batches bring while the missed changes are read waits for them, then everything is told in order.
    let waiting: ChangeNews[] | null = [];
    let turn = Promise.resolve();
    const queue = (news: ChangeNews) => (turn = turn.then(() => hear(news)).catch(() => sse.close()));
    const unsubscribe = feed.subscribe((news) => (waiting ? waiting.push(news) : queue(news)));
    const keepAlive = setInterval(() => sse.comment('keep-alive'), KEEP_ALIVE_MS);
    sse.onClose(() => {
      unsubscribe();
      clearInterval(keepAlive);
      const left = (openFeeds.get(principal.actor) ?? 1) - 1;
      if (left > 0) openFeeds.set(principal.actor, left);
      else openFeeds.delete(principal.actor);
    });

    const catchUp = async () => {
      const head = await lastChangePosition(app.db);
      const missed = resumeFrom === null ? [] : await listChanges(app.db, { after: resumeFrom, ...(head ? { upTo: head } : {}), limit: CATCH_UP_LIMIT + 1 });
      if (resumeFrom === null || missed.length > CATCH_UP_LIMIT) {
        last = head;
        sse.send('ready', { position: head }, head ?? undefined);
        if (resumeFrom !== null) sse.send('reset', { reason: `more than ${CATCH_UP_LIMIT} changes were missed` });
      } else {
        last = resumeFrom;
        sse.send('ready', { position: resumeFrom });
        tell(missed);
      }
      const pending = waiting!;
      waiting = null;
      for (const news of pending) queue(news);
    };
    // Koa sends the headers once this handler returns; the feed runs on behind them.
    void catchUp().catch(() => sse.close());
  });
}
