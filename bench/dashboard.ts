import { createProject, createService } from '../test/helpers/api-suite.js';
import { launchChromium, requireChromium, signInWithKey } from '../test/helpers/browser.js';
import { deployEnv } from '../test/helpers/deploy.js';
import { dockerUnavailable, removeProjectLeftovers, TEST_IMAGES } from '../test/helpers/docker.js';
import { startGitServer } from '../test/helpers/git-server.js';
import { startTestServer } from '../test/helpers/test-server.js';
import { median } from './deploy.js';
import { lighthouseScores } from './lighthouse.js';
import { line } from './print.js';

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

/** The dashboard in Debian's Chromium: the first screen, Lighthouse's scores, and a build's lines from the build's clock to the page. */
export async function dashboardBenchmarks() {
  const skip = requireChromium() || (await dockerUnavailable());
  if (skip) {
    line('dashboard', `skipped: ${skip}`);
    return;
  }
  const git = await startGitServer();
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  const project = await createProject(s, 'Bench dashboard');
  const browser = await launchChromium();
  try {
    for (let i = 0; i < 20; i++) await createService(s, project.id, { name: `svc-${i}`, repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] });
    const page = await (await browser.createBrowserContext()).newPage();
    await page.goto(s.url + '/', { waitUntil: 'networkidle0' });
    await Promise.all([page.waitForSelector('.card h2'), signInWithKey(page, s.key)]);

    // A cold cache each time: the first visit of a new browser, signed in.
    const firstScreen: number[] = [];
    for (let i = 0; i < 10; i++) {
      await page.setCacheEnabled(false);
      const started = performance.now();
      await page.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.card h2');
      firstScreen.push(performance.now() - started);
    }
    line('dashboard: the projects screen, signed in, no cache (median / p99 of 10)', `${median(firstScreen).toFixed(0)} ms / ${p99(firstScreen).toFixed(0)} ms`);
    await page.setCacheEnabled(true);
    const first = (await s.call('GET', `/api/projects/${project.id}`)).body.project as { services: { id: string }[] };
    const screens = [
      { name: 'projects', url: `${s.url}/` },
      { name: 'project', url: `${s.url}/projects/${project.id}` },
      { name: 'service', url: `${s.url}/services/${first.services[0]!.id}` },
      { name: 'installation', url: `${s.url}/installation` },
      { name: 'audit log', url: `${s.url}/audit` },
    ];
    // A warm session and cache: what a person who has the dashboard open sees on each screen's load.
    for (const screen of screens) {
      const paints: number[] = [];
      for (let i = 0; i < 6; i++) {
        await page.goto(screen.url, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('main h1');
        const paint = (await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")) as number | null;
        if (i > 0 && paint !== null) paints.push(paint);
      }
      line(`dashboard: first paint, ${screen.name}, warm session and cache (median / max of 5)`, `${median(paints).toFixed(0)} ms / ${Math.max(...paints).toFixed(0)} ms`);
    }
    await lighthouseScores(page, screens.filter((screen) => screen.name !== 'audit log'));

    // Each line carries the build's clock; the page notes when each line element appears.
    const ticks = `FROM ${TEST_IMAGES.python}\nRUN for i in $(seq 1 40); do echo "tick $(date +%s%N)"; sleep 0.05; done # ${Date.now()}\nCMD ["python3", "-c", "print(1)"]\n`;
    git.push('acme/ticks', { Dockerfile: ticks });
    const ticker = await createService(s, project.id, { name: 'ticks', repoFullName: 'acme/ticks', branch: 'main', runtimeMode: 'worker' });
    await page.goto(`${s.url}/services/${ticker.id}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('main h1');
    await page.evaluate(`window.__seen = []; new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes) if (n.dataset && n.dataset.line) window.__seen.push([n.textContent, Date.now()]); }).observe(document.body, { childList: true, subtree: true });`);
    await page.click('xpath/.//button[normalize-space(.)="Deploy"]');
    await page.waitForFunction('window.__seen.filter(([t]) => /^tick \\d+$/.test(t)).length >= 40', { timeout: 120_000 });
    const seen = (await page.evaluate('window.__seen')) as [string, number][];
    const latencies = seen.filter(([text]) => /^tick \d+$/.test(text)).map(([text, at]) => at - Number(BigInt(text.split(' ')[1]!) / 1_000_000n));
    line(`dashboard: build line printed → on the page (${latencies.length} lines)`, `p50 ${median(latencies)} ms, p99 ${p99(latencies)} ms`);

    // A deployment queued elsewhere (here: the API, as the CLI or a webhook would) until its row is on an open page.
    const watched = first.services[1]!.id;
    await page.goto(`${s.url}/services/${watched}?tab=deployments`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('main h1');
    const appearances: number[] = [];
    for (let i = 0; i < 5; i++) {
      const rows = (await page.evaluate("document.querySelectorAll('main table tbody tr').length")) as number;
      const started = performance.now();
      await s.call('POST', `/api/services/${watched}/deployments`);
      await page.waitForFunction(`document.querySelectorAll('main table tbody tr').length > ${rows}`, { timeout: 30_000 });
      appearances.push(performance.now() - started);
    }
    line('dashboard: a deployment queued through the API → its row on an open service page (median / max of 5)', `${median(appearances).toFixed(0)} ms / ${Math.max(...appearances).toFixed(0)} ms`);
  } finally {
    await browser.close();
    await s.close();
    await removeProjectLeftovers(project.id);
    await git.close();
  }
}
