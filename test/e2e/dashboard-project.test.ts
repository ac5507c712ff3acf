import type { Page } from 'puppeteer-core';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

t.setTimeout(300_000);

const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;
const edgeTitles = (page: Page) => page.$$eval('svg.graph-edges .graph-edge > title', (titles) => titles.map((e) => e.textContent ?? ''));
const cardNames = (page: Page) => page.$$eval('.graph-nodes .service-node .node-name', (names) => names.map((e) => e.textContent ?? ''));

t.test('the project page: services as cards, their references as edges, live, on a laptop and a phone', { skip: requireChromium() }, async (t) => {
  // Image services of the test image: nothing here deploys, so no Docker is needed.
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  const db = await createService(s, shop.id, testWebService('db'));
  const web = await createService(s, shop.id, { ...testWebService('web'), env: [{ key: 'DATABASE_URL', value: '${db.DATABASE_URL}' }] });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  await page.setViewport({ width: 1440, height: 900 });

  await t.test('from the projects screen, the project name leads to its page', async (t) => {
    await page.waitForSelector(`.cards a[href="/projects/${shop.id}"]`);
    await page.click(`.cards a[href="/projects/${shop.id}"]`);
    await page.waitForFunction(`location.pathname === '/projects/${shop.id}'`);
    await page.waitForSelector('svg.graph-edges .graph-edge');
    t.equal(await page.$eval('main h1', (h) => h.textContent), 'Shop idle', 'its name and status');
    t.match(await page.$eval('.project-page .page-header', (e) => e.textContent), 'Shop description', 'its description');
    t.equal(await page.$eval(`.sidebar a.nav-project[href="/projects/${shop.id}"]`, (a) => a.getAttribute('aria-current')), 'page', 'the sidebar marks the project');
    t.same(await page.$$eval('.breadcrumbs li', (els) => els.map((e) => e.textContent)), ['Projects', 'Shop']);
  });

  await t.test('two cards, web before db (it uses db), linking to their services, and one edge that names the variable', async (t) => {
    t.same(await cardNames(page), ['web', 'db'], 'what nothing uses comes first, in the tab order too');
    t.same(await page.$$eval('.graph-nodes .service-node', (cards) => cards.map((a) => a.getAttribute('href'))), [`/services/${web.id}`, `/services/${db.id}`]);
    t.same(await edgeTitles(page), ['web.DATABASE_URL → db.DATABASE_URL']);
    const [from, to] = await page.$eval('.graph-edge', (g) => [g.getAttribute('data-from'), g.getAttribute('data-to')]);
    t.same([from, to], [web.id, db.id], 'from the referencing card to the referenced one');
    t.equal(await page.$eval('.graph-edge .edge-label text', (e) => e.textContent), 'DATABASE_URL', 'labelled with the variable');
    const [webBox, dbBox] = await page.$$eval('.graph-nodes .service-node', (cards) => cards.map((c) => ({ left: c.getBoundingClientRect().left, right: c.getBoundingClientRect().right })));
    t.ok(webBox!.right < dbBox!.left, 'web is left of db: a column each');
    t.match(await page.$eval('.graph-nodes .service-node', (a) => a.textContent), /uses db\.DATABASE_URL/, 'the card says what it uses, for screen readers');
    await page.focus('.graph-nodes .service-node');
    await page.waitForSelector('.graph-edge.is-active');
    t.pass('a focused card lights its edges');
  });

  await t.test('a change made through the API shows without a reload', async (t) => {
    await page.evaluate('window.stillTheSamePage = true');
    t.equal((await s.call('PATCH', `/api/projects/${shop.id}`, { body: { name: 'Storefront' } })).status, 200);
    await page.waitForFunction("document.querySelector('main h1')?.textContent.startsWith('Storefront')");
    t.pass('the new name');
    await page.waitForFunction("document.querySelector('.activity li')?.textContent.includes('the project Storefront')");
    t.pass('the activity says it first');
    await createService(s, shop.id, testWebService('cache'));
    t.equal((await s.call('POST', `/api/services/${web.id}/env`, { body: { key: 'CACHE_HOST', value: '${cache.HOST}' } })).status, 200);
    await page.waitForFunction("document.querySelectorAll('svg.graph-edges .graph-edge').length === 2");
    t.same((await cardNames(page)).sort(), ['cache', 'db', 'web'], 'the new service has its card');
    t.ok((await edgeTitles(page)).includes('web.CACHE_HOST → cache.HOST'), 'and its reference an edge');
    t.equal(await page.evaluate('window.stillTheSamePage'), true, 'the page was not reloaded');
    t.ok((await page.$$eval('.activity li', (items) => items.map((i) => i.textContent ?? ''))).some((text) => text.includes('set CACHE_HOST on web')), 'the activity follows');
  });

  await t.test('no horizontal overflow and no serious accessibility violation, 1,440 and 390 px, light and dark', async (t) => {
    for (const theme of ['light', 'dark'] as const)
      for (const width of [1440, 390]) {
        await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
        await page.setViewport({ width, height: width > 600 ? 900 : 844 });
        await page.waitForFunction(`document.querySelectorAll('.graph-nodes .service-node').length === 3`);
        t.equal(await overflow(page), 0, `${width} px, ${theme}: nothing wider than the window`);
        t.same(await seriousViolations(page), [], `${width} px, ${theme}: no serious violation`);
        if (width === 390) {
          t.equal(await page.evaluate("getComputedStyle(document.querySelector('svg.graph-edges')).display"), 'none', 'a phone lists the cards, without edges');
          const uses = await page.$eval('.graph-nodes .node-uses', (e) => ({ text: e.textContent, width: e.getBoundingClientRect().width }));
          t.ok(uses.width > 100 && /^uses (db\.DATABASE_URL, cache\.HOST|cache\.HOST, db\.DATABASE_URL)/.test(uses.text ?? ''), `the card says what it uses (${uses.text})`);
          const lefts = await page.$$eval('.graph-nodes .service-node', (cards) => cards.map((c) => Math.round(c.getBoundingClientRect().left)));
          t.equal(new Set(lefts).size, 1, 'one column of cards');
        }
      }
  });

  await t.test("a service page's breadcrumbs lead back to its project", async (t) => {
    await page.setViewport({ width: 1440, height: 900 });
    await page.click(`.graph-nodes a[href="/services/${db.id}"]`);
    await page.waitForFunction(`location.pathname === '/services/${db.id}'`);
    await page.waitForSelector(`.breadcrumbs a[href="/projects/${shop.id}"]`);
    await page.click(`.breadcrumbs a[href="/projects/${shop.id}"]`);
    await page.waitForSelector('svg.graph-edges .graph-edge');
    t.pass('the project crumb opens the project page');
  });

  await t.test("another project's page, for a key that cannot see it, says there is no such project", async (t) => {
    const other = await createProject(s, 'Other');
    const key = (await s.call('POST', '/api/keys', { body: { name: 'scoped', access: 'read', projectIds: [other.id] } })).body.secret as string;
    const scoped = await signedInPage(browser, s.url, key);
    await scoped.goto(`${s.url}/projects/${shop.id}`, { waitUntil: 'domcontentloaded' });
    await scoped.waitForSelector('.empty-state');
    t.match(await scoped.$eval('main', (m) => m.textContent), 'No such project');
    t.notMatch(await scoped.$eval('main', (m) => m.textContent), 'Storefront');
  });
});
