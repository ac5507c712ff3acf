// Regenerates the README's screenshots of the dashboard: `npm run screenshots` (Docker, the test images and Chromium, as npm test sets up).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createProject, createService } from '../test/helpers/api-suite.js';
import { launchChromium } from '../test/helpers/browser.js';
import { deployEnv, waitForDeployment } from '../test/helpers/deploy.js';
import { removeProjectLeftovers, TEST_IMAGES } from '../test/helpers/docker.js';
import { DB_IMAGE_ENV } from '../test/helpers/engine-containers.js';
import { startTestServer } from '../test/helpers/test-server.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });

const { env } = await deployEnv(DB_IMAGE_ENV);
const s = await startTestServer(env);
const project = await createProject(s, 'Shop');
const browser = await launchChromium();
try {
  const web = await createService(s, project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [{ key: 'GREETING', value: 'hello' }] });
  await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'shop.example.com' } });
  const db = await createService(s, project.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [] });
  for (const serviceId of [web.id, db.id]) await waitForDeployment(s, serviceId, (await s.call('POST', `/api/services/${serviceId}/deployments`)).body.deployment.id);
  await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: "create table orders (id int primary key, customer text, total numeric); insert into orders values (1, 'Ada', 42.50), (2, 'Grace', 17.00), (3, 'Linus', 99.90)" } });
  await createProject(s, 'Blog');

  const page = await (await browser.createBrowserContext()).newPage();
  await page.setViewport({ width: 1280, height: 860 });
  const shot = async (name: string) => page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
  await page.goto(s.url + '/', { waitUntil: 'networkidle0' });
  await shot('sign-in');
  await page.type('#api-key', s.key);
  await Promise.all([page.waitForSelector('.card h2'), page.click('button[type=submit]')]);
  await shot('projects');
  await page.goto(`${s.url}/services/${web.id}`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction("document.querySelector('.log')?.textContent.includes('listening')");
  await shot('service');
  await page.goto(`${s.url}/services/${db.id}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('xpath/.//select[@id="db-table"]/option[@value="public.orders"]');
  await page.select('#db-table', 'public.orders');
  await page.waitForSelector('xpath/.//button[contains(@class, "cell") and text()="Ada"]');
  await (await page.$('#database'))!.scrollIntoView();
  await shot('database');
  await page.goto(`${s.url}/audit`, { waitUntil: 'networkidle0' });
  await shot('audit-log');
  await page.goto(`${s.url}/installation`, { waitUntil: 'networkidle0' });
  await shot('installation');
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.close();
  await s.close();
  await removeProjectLeftovers(project.id);
}
