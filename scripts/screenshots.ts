// Regenerates the README's screenshots of the dashboard: `npm run screenshots` (Docker, the test images and Chromium, as npm test sets up).
// Every screen at 1,440 × 900 in the light and the dark theme (`<name>.png`, `<name>-dark.png`), and three on a phone.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'puppeteer-core';
import { createProject, createService } from '../test/helpers/api-suite.js';
import { launchChromium, signInWithKey } from '../test/helpers/browser.js';
import { deployEnv, waitForDeployment } from '../test/helpers/deploy.js';
import { removeProjectLeftovers, TEST_IMAGES } from '../test/helpers/docker.js';
import { DB_IMAGE_ENV } from '../test/helpers/engine-containers.js';
import { startTestServer } from '../test/helpers/test-server.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });

const { env } = await deployEnv(DB_IMAGE_ENV);
const s = await startTestServer(env);
const project = await createProject(s, 'Shop');
const blog = await createProject(s, 'Blog');
const browser = await launchChromium();
try {
  const web = await createService(s, project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [{ key: 'GREETING', value: 'hello' }, { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' }] });
  await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'shop.example.com' } });
  const db = await createService(s, project.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
  for (const serviceId of [web.id, db.id]) await waitForDeployment(s, serviceId, (await s.call('POST', `/api/services/${serviceId}/deployments`)).body.deployment.id);
  await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: "create table orders (id int primary key, customer text, total numeric); insert into orders values (1, 'Ada', 42.50), (2, 'Grace', 17.00), (3, 'Linus', 99.90)" } });
  await createService(s, blog.id, { name: 'ghost', repoUrl: 'docker-image', dockerImage: 'ghost:5', branch: 'main', runtimeMode: 'web', internalPort: 2368, env: [] });
  await s.call('POST', '/api/keys', { body: { name: 'ci', access: 'write', projectIds: [project.id] } });
  await s.call('POST', '/api/notification-channels', { body: { name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com/slipway' }, events: ['deployment.failed'] } });
  // People: the owner, and a member who deploys the shop (the People tab, a project's members, My account).
  const PASSWORD = 'a long enough password';
  await s.call('POST', '/api/users/owner', { body: { email: 'ada@example.com', name: 'Ada Lovelace', password: PASSWORD } });
  const invited = await s.call('POST', '/api/invitations', { body: { email: 'grace@example.com', role: 'member', projects: [{ projectId: project.id, role: 'deployer' }] } });
  await s.call('POST', `/api/invitations/${String(invited.body.url).split('/').pop()}/accept`, { key: null, body: { name: 'Grace Hopper', password: PASSWORD } });

  const context = await browser.createBrowserContext();
  /**
   * A new page for each picture: a signed-in page keeps the change feed open, so it is waited for by what it
   * shows (`ready`), and pages kept for the back button would hold the browser's connections.
   */
  const open = async (ctx: BrowserContext, path: string, ready: string, dark: boolean, width = 1440): Promise<Page> => {
    const page = await ctx.newPage();
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }]);
    await page.setViewport({ width, height: width > 600 ? 900 : 844 });
    await page.goto(s.url + path, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(ready);
    await page.waitForFunction("!document.querySelector('.skeleton')");
    return page;
  };
  const shot = async (page: Page, name: string, dark: boolean) => {
    // The web font and the last answers settle before the picture.
    await page.evaluate('document.fonts.ready');
    await new Promise((r) => setTimeout(r, 400));
    await page.screenshot({ path: join(OUT, `${name}${dark ? '-dark' : ''}.png`) });
    await page.close();
  };

  const signIn = await open(context, '/', '#api-key', false);
  await Promise.all([signIn.waitForSelector('.card h2'), signInWithKey(signIn, s.key)]);
  await signIn.close();

  for (const dark of [false, true]) {
    await shot(await open(await browser.createBrowserContext(), '/', '#api-key', dark), 'sign-in', dark);
    await shot(await open(context, '/', '.card h2', dark), 'projects', dark);
    await shot(await open(context, `/projects/${project.id}`, 'svg.graph-edges .graph-edge', dark), 'project', dark);
    const service = await open(context, `/services/${web.id}?tab=deployments`, 'main h1', dark);
    await service.waitForFunction("document.querySelector('.log')?.textContent.includes('listening')");
    await shot(service, 'service', dark);
    const database = await open(context, `/services/${db.id}?tab=data`, 'main h1', dark);
    await database.waitForSelector('xpath/.//select[@id="db-table"]/option[@value="public.orders"]');
    await database.select('#db-table', 'public.orders');
    await database.waitForSelector('xpath/.//button[contains(@class, "cell") and text()="Ada"]');
    await shot(database, 'database', dark);
    await shot(await open(context, '/audit', '.audit-log', dark), 'audit-log', dark);
    await shot(await open(context, '/installation', '[role=tabpanel] table', dark), 'installation', dark);
    await shot(await open(context, '/installation?tab=keys', '#key-name', dark), 'installation-keys', dark);
  }
  const owner = await browser.createBrowserContext();
  const ownerSignIn = await open(owner, '/', '#sign-in-email', false);
  await ownerSignIn.type('#sign-in-email', 'ada@example.com');
  await ownerSignIn.type('#sign-in-password', PASSWORD);
  await Promise.all([ownerSignIn.waitForSelector('.card h2'), ownerSignIn.click('form[aria-label="Sign in with your e-mail"] button[type=submit]')]);
  await ownerSignIn.close();
  for (const dark of [false, true]) {
    await shot(await open(owner, '/installation?tab=people', 'table.people', dark), 'people', dark);
    await shot(await open(owner, '/account', '#account-name', dark), 'account', dark);
  }
  await shot(await open(owner, '/account', '#account-name', false, 390), 'phone-account', false);
  await shot(await open(context, `/services/${web.id}`, 'main h1', false, 390), 'phone-service', false);
  const menu = await open(context, '/', '.card h2', false, 390);
  await menu.click('.menu-button');
  await menu.waitForFunction("getComputedStyle(document.querySelector('.sidebar')).visibility === 'visible'");
  await new Promise((r) => setTimeout(r, 300));
  await shot(menu, 'phone-menu', false);
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.close();
  await s.close();
  await removeProjectLeftovers(project.id);
  await removeProjectLeftovers(blog.id);
}
