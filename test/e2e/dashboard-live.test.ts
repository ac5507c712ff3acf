import { spawn } from 'node:child_process';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, signedInPage, signInWithKey } from '../helpers/browser.js';
import { cliArgs, root } from '../helpers/cli-process.js';
import { deployEnv, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

const skip = requireChromium() || (await requireDocker()) || (await requireDbImages());

t.test('an open page follows what happens elsewhere, without a reload', { skip }, async (t) => {
  const { env } = await deployEnv(DB_IMAGE_ENV);
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Live');
  t.teardown(() => removeProjectLeftovers(project.id));
  const web = await createService(s, project.id, testWebService('web'));
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);

  const open = async (path: string) => {
    await page.goto(s.url + path, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('main h1');
    // Gone if the page were loaded again: what follows must come through the change feed.
    await page.evaluate('window.stillTheSamePage = true');
  };
  const notReloaded = async () => t.equal(await page.evaluate('window.stillTheSamePage'), true, 'the page was not reloaded');
  const newestRow = "(document.querySelector('main table tbody tr')?.textContent ?? '')";
  // Other tests share this 2-core machine: what the page waits for may take a while, never a reload.
  const until = (condition: string) => page.waitForFunction(condition, { timeout: 120_000 });

  await t.test('a deployment made with the CLI appears and follows to succeeded', async (t) => {
    await open(`/services/${web.id}?tab=deployments`);
    const cli = spawn(process.execPath, [...cliArgs, 'deploy', web.id], {
      cwd: root,
      env: { ...process.env, SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key },
    });
    let said = '';
    cli.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    cli.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    t.teardown(() => void (cli.exitCode === null && cli.kill()));
    void exited.then((code) => code !== 0 && t.comment(`the CLI: ${said}`));
    // An image deploys in about a second: the row may first show when it already ended.
    await until(`/queued|running|succeeded/.test(${newestRow})`);
    t.pass('the CLI’s deployment shows');
    await until(`${newestRow}.includes('succeeded')`);
    t.equal(await exited, 0, 'the CLI saw it succeed too');
    await until("document.querySelector('main table tbody tr')?.textContent.includes('v1')");
    t.pass('the release it made follows');
    await until("document.querySelector('.log')?.textContent.includes('Deployment succeeded')");
    t.pass("the new deployment's log is followed");
    // The image is only present here: it runs without a pull, and the line saying so is not a failure.
    t.match(await page.$eval('.log', (log) => log.textContent), /present on this machine, not pulled/);
    t.equal(await page.$$eval('.log .line-failed', (lines) => lines.length), 0, 'nothing painted as failed in a deployment that succeeded');
    await notReloaded();
  });

  await t.test('a rollback made through the API shows, and the release it put back', async (t) => {
    const second = await s.call('POST', `/api/services/${web.id}/deployments`);
    await waitForDeployment(s, web.id, second.body.deployment.id);
    await until("document.querySelector('main table tbody tr')?.textContent.includes('v2')");
    t.pass('the second release shows');
    const releases = (await s.call('GET', `/api/services/${web.id}/releases`)).body.releases as { id: string; version: number }[];
    const first = releases.find((r) => r.version === 1)!;
    const rollback = await s.call('POST', `/api/services/${web.id}/rollback`, { body: { releaseId: first.id, config: 'release' } });
    t.equal(rollback.status, 200);
    await until(`${newestRow}.includes('rollback') && ${newestRow}.includes('succeeded')`);
    t.pass('the rollback shows as it ends');
    await notReloaded();
  });

  await t.test('a link to a deployment, opened signed out, signs in and lands on its log', async (t) => {
    const first = (await s.call('GET', `/api/services/${web.id}/deployments`)).body.deployments.at(-1) as { id: string };
    const stranger = await (await browser.createBrowserContext()).newPage();
    await stranger.goto(`${s.url}/deployments/${first.id}`, { waitUntil: 'domcontentloaded' });
    await signInWithKey(stranger, s.key);
    await stranger.waitForFunction(`location.pathname === '/services/${web.id}' && new URLSearchParams(location.search).get('deployment') === '${first.id}'`, { timeout: 60_000 });
    await stranger.waitForFunction("document.querySelector('main h1')?.textContent.includes('web')", { timeout: 60_000 });
    t.equal(await stranger.$eval('[role=tab][aria-selected=true]', (e) => e.textContent), 'Deployments', 'on its Deployments tab');
    t.pass("the service's page, following that deployment");
    // The oldest deployment (the last row) is the one followed, not the newest.
    await stranger.waitForFunction(`document.querySelector('tr[aria-current="true"]') === [...document.querySelectorAll('main table tbody tr')].at(-1)`, { timeout: 60_000 });
    t.equal((await s.call('GET', `/api/deployments/${first.id}`)).body.deployment.serviceId, web.id, 'GET /api/deployments/:id names its service');
  });

  await t.test("a statement in the console shows in the grid and the table's count together", async (t) => {
    const db = await createService(s, project.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
    const queued = await s.call('POST', `/api/services/${db.id}/deployments`);
    t.equal((await waitForDeployment(s, db.id, queued.body.deployment.id)).status, 'succeeded');
    await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: "create table items (id int primary key, name text); insert into items values (1, 'first')" } });
    await open(`/services/${db.id}?tab=console`);
    await page.type('#db-statement', "insert into items values (2, 'second')");
    await (await page.waitForSelector('xpath/.//button[normalize-space(.)="Run"]'))!.click();
    await page.waitForSelector('table[aria-label="Result"]');
    await page.click('xpath/.//button[@role="tab"][normalize-space(.)="Data"]');
    await page.waitForSelector('#db-table option[value="public.items"]');
    await page.select('#db-table', 'public.items');
    await page.waitForSelector('xpath/.//button[contains(@class, "cell") and text()="second"]');
    const option = await page.$eval('#db-table option[value="public.items"]', (o) => o.textContent);
    t.match(option, /\(2\)/, 'the count says 2 as the grid shows 2 rows');
    // Postgres logs its ordinary start-up on stderr: shown, but not as an error (its log is on the Overview).
    await page.click('xpath/.//button[@role="tab"][normalize-space(.)="Overview"]');
    await until("[...document.querySelectorAll('.line-stderr')].some((l) => l.textContent.includes('ready to accept connections'))");
    t.equal(await page.$$eval('.line-stderr.line-failed', (lines) => lines.length), 0, "the database's own stderr is not painted as a failure");
    await notReloaded();
  });
});
