import { listUnfinishedDeployments } from '../../projections/deployment-queries.js';
import { requireCaddy } from './caddy.js';
import { deployEnv } from './deploy.js';
import { removeProjectLeftovers, requireDocker } from './docker.js';
import { freePort } from './net.js';
import { startTestServer, type TestServer } from './test-server.js';

/** tap's `skip` for the API suite: it runs with a real Caddy and the Docker engine (fatal under npm test). */
export async function apiSuiteRequirements(): Promise<string | false> {
  return requireCaddy() || (await requireDocker());
}

/** Every event of the history, oldest first, paged as an auditor would. */
export async function allEvents(s: TestServer): Promise<{ position: string; streamId: string; type: string; data: any }[]> {
  const events = [];
  let after = '';
  for (;;) {
    const page = await s.call('GET', `/api/events?limit=1000${after ? `&after=${after}` : ''}`);
    if (page.status !== 200) throw new Error(`reading the history: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...page.body.events);
    if (!page.body.next) return events;
    after = page.body.next;
  }
}

async function untilNoDeploymentRuns(s: TestServer, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const unfinished = await listUnfinishedDeployments(s.app.db);
    if (unfinished.length === 0) return;
    if (Date.now() > end) {
      throw new Error(`deployments still ${unfinished.map((d) => `${d.id} ${d.status}`).join(', ')} ${timeoutMs} ms after the suite ended`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A Slipway with a real Caddy and the Docker engine (deployEnv), so `proxy` answers are Caddy's and the
 * deployments the suite queues really run. close() waits for every deployment to end (stopping the server
 * would abort it), then removes the containers, images and networks of every project the history names.
 */
export async function startSuiteServer(extra: Record<string, string> = {}): Promise<TestServer> {
  // Nothing listens there: a clone fails at once, with or without a network.
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: `http://127.0.0.1:${await freePort()}`, ...extra });
  const s = await startTestServer(env);
  const close = s.close.bind(s);
  return {
    ...s,
    async close() {
      let projectIds: string[] = [];
      try {
        await untilNoDeploymentRuns(s, 60_000);
        projectIds = (await allEvents(s)).filter((e) => e.type === 'ProjectCreated').map((e) => e.streamId.replace(/^project-/, ''));
      } finally {
        await close();
        for (const id of projectIds) await removeProjectLeftovers(id);
      }
    },
  };
}
