import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { deployEnv, probe, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startTestServer } from '../helpers/test-server.js';

const skip = requireChromium() || (await requireDocker()) || (await requireDbImages());

t.test('the dashboard drives real deployments, rollbacks, domains and a Postgres database', { skip }, async (t) => {
  const { env, proxyPort } = await deployEnv(DB_IMAGE_ENV);
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Flows');
  t.teardown(() => removeProjectLeftovers(project.id));
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);

  /** Creates a service on the projects screen, as a user would; the page moves to it. */
  const createInBrowser = async (name: string, fill: (field: (name: string) => string) => Promise<void>) => {
    // Not network idle: the change feed's stream stays open on every signed-in page.
    await page.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
    const field = (f: string) => `#new-${project.id}-${f}`;
    // Opening the form is the user's click on "Add a service"; under load a click can land while the list still
    // lays out, so it is given again until the form shows.
    for (let i = 0; !(await page.$(`details[open] ${field('name')}`)) && i < 5; i++) {
      await (await page.waitForSelector('details.new-service summary'))!.click();
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.waitForSelector(field('name'), { visible: true });
    await page.type(field('name'), name);
    await fill(field);
    const form = 'form[aria-label="New service of Flows"]';
    await page.click(`${form} button[type=submit]`);
    // The new service's page, or the API's refusal said at the form.
    await page.waitForFunction(`document.querySelector('main h1')?.textContent.startsWith(${JSON.stringify(name)}) || document.querySelector('${form} [role=alert]')`);
    const refused = await page.$eval(`${form} [role=alert]`, (e) => e.textContent).catch(() => null);
    if (refused) throw new Error(`creating ${name}: ${refused}`);
    return { id: new URL(page.url()).pathname.split('/services/')[1]! };
  };
  const web = await createInBrowser('web', async (field) => {
    await page.type(field('source'), TEST_IMAGES.web);
    await page.type(field('port'), '8080');
  });
  t.match((await s.call('GET', `/api/services/${web.id}`)).body.service, { name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, internalPort: 8080, runtimeMode: 'web' }, 'the image service the form created');

  const latestDeployment = async (serviceId = web.id) => (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments[0] as { id: string; status: string } | undefined;
  // Pages with a running service keep a log stream open: the network is never idle there.
  const open = async (path: string) => {
    await page.goto(s.url + path, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('main h1');
  };
  /** The deployment the last click queued: the newest one that is not `before`. */
  const queuedAfter = async (before: string | undefined, serviceId = web.id) => {
    for (let i = 0; i < 300; i++) {
      const d = await latestDeployment(serviceId);
      if (d && d.id !== before) return d;
      await new Promise((r) => setTimeout(r, 100));
    }
    const said = await page.$$eval('[role=alert]', (els) => els.map((e) => e.textContent).join(' | '));
    throw new Error(`the click queued no deployment within 30 s${said ? `; the page says: ${said}` : ''}`);
  };
  const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
  const clickButton = async (label: string) => {
    const button = await page.waitForSelector(`xpath/.//button[normalize-space(.)="${label}"]`);
    // A click in the DOM, not at the button's coordinates: live log lines arriving above it move it down,
    // and under load a mouse click could land where it was a moment before.
    await button!.evaluate((b) => (b as unknown as { click(): void }).click());
  };
  /** Opens a tab of the service page by a click, and waits until it is the one shown. */
  const tab = async (label: string) => {
    const button = await page.waitForSelector(`xpath/.//button[@role="tab"][normalize-space(.)="${label}"]`);
    await button!.evaluate((b) => (b as unknown as { click(): void }).click());
    await page.waitForFunction(`document.querySelector('[role=tab][aria-selected=true]')?.textContent === ${JSON.stringify(label)}`);
  };

  await t.test('a variable, a domain, a deploy with its log arriving live', async (t) => {
    await open(`/services/${web.id}`);
    t.same(await seriousViolations(page), [], 'the service screen is accessible');
    await tab('Variables');
    await page.type('#var-key', 'GREETING');
    await page.type('#var-value', 'one');
    await clickButton('Set');
    await page.waitForSelector('xpath/.//th[text()="GREETING"]');
    await tab('Domains');
    await page.type('#new-domain', 'flows.dashboard.test');
    await clickButton('Add');
    await page.waitForSelector('xpath/.//td[text()="flows.dashboard.test"]');
    await tab('Overview');
    await clickButton('Deploy');
    const first = await queuedAfter(undefined);
    // Deploying moves to the Deployments tab, to the new deployment's log.
    await page.waitForFunction("document.querySelector('[role=tab][aria-selected=true]')?.textContent === 'Deployments'");
    await page.waitForFunction("document.querySelector('.log')?.textContent.includes('test-web listening on 8080')", { timeout: 60_000 });
    t.pass('the container’s first line arrived in the live log');
    t.equal((await waitForDeployment(s, web.id, first.id)).status, 'succeeded');
    t.equal((await probe(proxyPort, 'flows.dashboard.test')).body, 'one', 'the domain answers with the variable');
    // The health monitor sees the new release within its interval; the page shows what it saw when loaded.
    // The engine's stats answer within 2 s or not at all (null use): under load the page is loaded again.
    const healthy = 'xpath/.//dd[span[contains(@class, "health-healthy")]]';
    for (let i = 0; i < 30; i++) {
      await open(`/services/${web.id}`);
      if ((await page.$(healthy)) && (await page.$('dd.usage'))) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    t.ok(await page.$(healthy), 'the service shows healthy');
    t.match(await text('dd.usage'), /CPU [\d.]+% \(no limit\).*memory \d+ MiB of [\d.]+ (MiB|GiB)/, 'the container’s use against its limits');
    t.match(await text('.facts'), /Current releasev1, /, 'the current release');
    // The runtime log's stream stays open while the container runs: cut the network under it.
    await tab('Logs');
    const runtimeState = "document.querySelector('.stream-state')?.textContent";
    await page.waitForFunction(`${runtimeState} === 'Live'`);
    await page.evaluate(`window.__states = []; new MutationObserver(() => window.__states.push(${runtimeState})).observe(document.body, { subtree: true, characterData: true, childList: true })`);
    s.http.closeAllConnections();
    await page.waitForFunction(`window.__states.includes('Connection lost — reconnecting…')`, { timeout: 20_000 });
    t.pass('a lost stream says so');
    await page.waitForFunction(`${runtimeState} === 'Live'`, { timeout: 20_000 });
    t.pass('and comes back by itself');
  });

  await t.test('a pasted .env reviewed as a diff, a second release, then a rollback from the releases list', async (t) => {
    await tab('Variables');
    await page.type('#env-paste', 'GREETING=two\nOTHER=x\n');
    await clickButton('Review changes');
    t.match(await text('.diff'), /~ GREETING.*\+ OTHER/s, 'changed and added, values not shown');
    await clickButton('Save 2 change(s)');
    await page.waitForSelector('xpath/.//th[text()="OTHER"]');
    const before = (await latestDeployment())!.id;
    await tab('Overview');
    await clickButton('Deploy');
    const second = await queuedAfter(before);
    t.equal((await waitForDeployment(s, web.id, second.id)).status, 'succeeded');
    t.equal((await probe(proxyPort, 'flows.dashboard.test')).body, 'two');
    // The releases read model follows the deployment's: under load it can still show v1 as current for a moment,
    // and the page would offer v2 to roll back to.
    for (let i = 0; i < 100; i++) {
      const releases = (await s.call('GET', `/api/services/${web.id}/releases`)).body.releases as { version: number; current: boolean }[];
      if (releases.find((r) => r.current)?.version === 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.reload({ waitUntil: 'domcontentloaded' });
    await tab('Releases');
    t.match(await text('.releases li:first-child .release-head'), /^v2\s*current.*by bootstrap \(you\)$/, 'the newest release: current, and who deployed it, by the key’s name');
    t.match(await text('.releases li:first-child .release-changes'), /\+OTHER · changed: GREETING/, 'v2 added OTHER and changed GREETING, by name');
    await clickButton('Roll back to this');
    t.equal(await answerDialog(page), 'Roll web back to v1?', 'the rollback is asked first');
    const rollback = await queuedAfter(second.id);
    t.equal((await waitForDeployment(s, web.id, rollback.id)).status, 'succeeded');
    t.equal((await probe(proxyPort, 'flows.dashboard.test')).body, 'one', 'v1 answers again');
  });

  await t.test('a failed deployment is explained where it failed', async (t) => {
    const broken = await createService(s, project.id, { name: 'broken', repoUrl: 'docker-image', dockerImage: 'slipway/not-built-here:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] });
    await open(`/services/${broken.id}`);
    await clickButton('Deploy');
    await page.waitForSelector('tr[data-status="failed"]', { timeout: 60_000 });
    await page.reload({ waitUntil: 'domcontentloaded' });
    await clickButton('Explain');
    await page.waitForSelector('.explanation');
    t.match(await text('.explanation'), /image/i, 'the explanation is about the image');
  });

  await t.test('Postgres: a row edited in the grid, a statement run, a backup taken and restored, the schedule, an import', async (t) => {
    const db = await createInBrowser('db', async (field) => {
      await page.select(field('kind'), 'engine');
      await page.select(field('source'), 'postgres');
    });
    t.match((await s.call('GET', `/api/services/${db.id}`)).body.service, { repoUrl: 'database', repoFullName: 'database:postgres', internalPort: 5432 }, 'the database the form created');
    const legacy = await createService(s, project.id, { name: 'legacy', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [{ key: 'POSTGRES_PASSWORD', value: 'legacy-Pw-1' }] });
    for (const service of [db, legacy]) {
      const queued = await s.call('POST', `/api/services/${service.id}/deployments`);
      t.equal((await waitForDeployment(s, service.id, queued.body.deployment.id)).status, 'succeeded');
    }
    await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: "create table items (id int primary key, name text); insert into items values (1, 'first'), (2, 'second')" } });
    await open(`/services/${db.id}?tab=data`);
    await page.waitForSelector('#db-table option[value="public.items"]');
    await page.select('#db-table', 'public.items');
    // By keyboard: Enter opens the cell, Escape leaves it unchanged with the focus back on it, Enter saves.
    const cell = await page.waitForSelector('xpath/.//button[contains(@class, "cell") and text()="first"]');
    await cell!.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.id === 'cell-edit'");
    await page.keyboard.type('-discarded');
    await page.keyboard.press('Escape');
    await page.waitForFunction("document.activeElement?.textContent === 'first' && document.activeElement.classList.contains('cell')");
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.id === 'cell-edit'");
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type('edited');
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.textContent === 'edited'");
    const rows = (await s.call('GET', `/api/services/${db.id}/database/rows?table=public.items`)).body.rows as { id: number; name: string }[];
    t.same(rows.find((r) => r.id === 1)?.name, 'edited', 'the database has the edit');
    t.same(await seriousViolations(page), [], 'the database screen is accessible');
    await tab('Connect');
    await page.waitForSelector('section[aria-labelledby="tls"] a[download]');
    t.match(await text('section[aria-labelledby="tls"]'), /serves TLS.*sslmode=verify-full/, 'how to connect over TLS');
    const ca = await page.$eval('section[aria-labelledby="tls"] a[download]', async (a) => (await fetch(a.getAttribute('href')!)).text());
    t.match(ca, /^-----BEGIN CERTIFICATE-----/, 'the CA certificate downloads through the session');

    await tab('Console');
    await page.type('#db-statement', 'select count(*) as n from items');
    await clickButton('Run');
    await page.waitForSelector('table[aria-label="Result"]');
    t.match(await text('table[aria-label="Result"]'), /n\s*2/, 'the result as a table');

    await tab('Backups');
    await clickButton('Back up now');
    await page.waitForSelector('xpath/.//section[@aria-labelledby="backups"]//td[contains(@class, "status-succeeded")]', { timeout: 60_000 });
    await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: 'delete from items' } });
    await clickButton('Restore…');
    t.match(await answerDialog(page, 'db'), /^Restore db from the backup of /, 'a restore asks for the service’s name');
    await page.waitForSelector('xpath/.//p[starts-with(text(), "Restored at")]', { timeout: 60_000 });
    const after = (await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: 'select count(*)::int as n from items' } })).body.rows[0].n;
    t.equal(after, 2, 'the restore brought the rows back');

    await page.click('xpath/.//label[normalize-space(.)="Automatic backups"]/input');
    await clickButton('Save backup schedule');
    await page.waitForSelector('xpath/.//p[text()="Backup schedule saved."]');
    t.equal((await s.call('GET', `/api/services/${db.id}/database/backups`)).body.settings.automaticEnabled, true, 'the schedule saved from the page');

    // An import from another database of the project; its password is never shown.
    await s.call('POST', `/api/services/${legacy.id}/database/query`, { body: { sql: "create table customers (name text); insert into customers values ('Ada')" } });
    await open(`/services/${db.id}?tab=backups`);
    await page.type('#import-url', 'postgresql://postgres:legacy-Pw-1@legacy:5432/legacy');
    await clickButton('Import');
    await answerDialog(page);
    await page.waitForSelector('xpath/.//section[@aria-labelledby="imports"]//td[contains(@class, "status-succeeded")]', { timeout: 120_000 });
    t.match(await text('section[aria-labelledby="imports"] table'), /postgresql:\/\/legacy:5432\/legacy/, 'the source, without its password');
    t.notMatch(await page.content(), /legacy-Pw-1/, 'the password is nowhere on the page');
    const imported = (await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: 'select name from customers' } })).body.rows;
    t.same(imported, [{ name: 'Ada' }], 'the rows came over');
  });
});
