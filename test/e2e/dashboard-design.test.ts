import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, seriousViolations, signInWithKey } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const WIDTHS = [1440, 390] as const;
const THEMES = ['light', 'dark'] as const;
const TABS = ['health', 'notifications', 'cluster', 'settings', 'connections', 'keys'];
const SERVICE_TABS = ['overview', 'deployments', 'logs', 'terminal', 'jobs', 'variables', 'domains', 'releases', 'settings'];
const DATABASE_TABS = ['overview', 'data', 'console', 'backups', 'connect', 'variables', 'settings'];

// Its checks take about 2 min on this machine, 3 under a loaded suite.
t.setTimeout(420_000);

/** A signed-in browser profile: its pages share the session cookie. */
async function signedInContext(browser: Browser, s: TestServer): Promise<BrowserContext> {
  const context = await browser.createBrowserContext();
  const page = await open(context, s.url + '/', 1440, 'light');
  await Promise.all([page.waitForSelector('header.top'), signInWithKey(page, s.key)]);
  await page.close();
  return context;
}

/**
 * A new page at `url`, `width` wide, in a colour scheme, once its screen has drawn. One page per screen: each
 * page holds the change feed's connection, and pages kept for the back button would use up the browser's six.
 * Chromium aborts the requests under way when the machine's network changes (other tests start containers),
 * which can leave a page without its script: a page that does not draw is loaded again, twice at most.
 */
async function open(context: BrowserContext, url: string, width: number, theme: (typeof THEMES)[number]): Promise<Page> {
  const page = await context.newPage();
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
  await page.setViewport({ width, height: width > 600 ? 900 : 844 });
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('main h1, #api-key', { timeout: 20_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  // Lists draw after their answers: wait until no skeleton is left.
  await page.waitForFunction("!document.querySelector('.skeleton')");
  return page;
}

const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;

t.test('every screen fits a laptop and a phone, in light and dark, with no serious accessibility violation', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  const web = await createService(s, shop.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'example/web:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [{ key: 'GREETING', value: 'hello' }] });
  await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'shop.example.com' } });
  const db = await createService(s, shop.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, env: [] });
  // No Docker engine here: the deployment fails at once, which gives the service screen a failed row and its log.
  await s.call('POST', `/api/services/${web.id}/deployments`);
  await createProject(s, 'A project whose name is long enough to need more than one line on a phone');
  await s.call('POST', '/api/keys', { body: { name: 'ci', access: 'write', projectIds: [shop.id] } });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const signedIn = await signedInContext(browser, s);
  const signedOut = await browser.createBrowserContext();

  const screens: [string, BrowserContext, string][] = [
    ['sign-in', signedOut, '/'],
    ['projects', signedIn, '/'],
    ...SERVICE_TABS.map((tab): [string, BrowserContext, string] => [`a service, ${tab}`, signedIn, `/services/${web.id}?tab=${tab}`]),
    ...DATABASE_TABS.map((tab): [string, BrowserContext, string] => [`a database, ${tab}`, signedIn, `/services/${db.id}?tab=${tab}`]),
    ['the audit log', signedIn, '/audit'],
    ...TABS.map((tab): [string, BrowserContext, string] => [`installation, ${tab}`, signedIn, `/installation?tab=${tab}`]),
  ];
  // Layout and colours are CSS alone (media queries), so one page per screen is resized and recoloured in place,
  // as a person's window would be, instead of being loaded four times.
  for (const [name, context, path] of screens) {
    const page = await open(context, s.url + path, WIDTHS[0], THEMES[0]);
    for (const width of WIDTHS)
      for (const theme of THEMES) {
        // Colours change with a transition, which axe would read midway: with reduced motion (the dashboard
        // honours it) they change at once.
        await page.emulateMediaFeatures([
          { name: 'prefers-color-scheme', value: theme },
          { name: 'prefers-reduced-motion', value: 'reduce' },
        ]);
        await page.setViewport({ width, height: width > 600 ? 900 : 844 });
        t.equal(await overflow(page), 0, `${name} at ${width} px, ${theme}: nothing wider than the window`);
        t.same(await seriousViolations(page), [], `${name} at ${width} px, ${theme}: no serious accessibility violation`);
      }
    await page.close();
  }
});

t.test('the shell: the sidebar and breadcrumbs say where you are; on a phone the menu opens and closes, and Sign out is reachable', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  const web = await createService(s, shop.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'example/web:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const context = await signedInContext(browser, s);

  const wide = await open(context, `${s.url}/services/${web.id}`, 1440, 'light');
  await wide.waitForFunction("document.querySelectorAll('.breadcrumbs li').length === 3");
  t.same(await wide.$$eval('.breadcrumbs li', (els) => els.map((e) => e.textContent)), ['Projects', 'Shop', 'web'], 'Projects › project › service');
  t.equal(await wide.$eval('.sidebar [aria-current=page]', (e) => e.getAttribute('href')), `/services/${web.id}`, 'the sidebar marks the service');
  t.equal(await wide.evaluate("getComputedStyle(document.querySelector('.menu-button')).display"), 'none', 'no menu button on a wide screen');
  await wide.close();

  const phone = await open(context, s.url + '/', 390, 'light');
  /** Whether the element is shown whole within the window. */
  const onScreen = (element: string) => `(() => {
    const e = ${element};
    const r = e.getBoundingClientRect();
    return getComputedStyle(e).visibility === 'visible' && r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight;
  })()`;
  const serviceLink = `document.querySelector('.sidebar a[href="/services/${web.id}"]')`;
  const signOut = `[...document.querySelectorAll('header button')].find((b) => b.textContent.trim() === 'Sign out')`;
  const visible = (element: string) => phone.evaluate(onScreen(element)) as Promise<boolean>;
  // The sidebar slides (0.2 s): a click while it moves lands on whatever passes under the pointer.
  const settled = (open: boolean) => phone.waitForFunction(open ? onScreen(serviceLink) : `getComputedStyle(document.querySelector('.sidebar')).visibility === 'hidden'`);
  t.equal(await visible(serviceLink), false, 'the sidebar is hidden behind the menu');
  t.equal(await visible(signOut), true, 'Sign out is on the screen');
  await phone.click('.menu-button');
  await phone.waitForFunction("document.activeElement?.classList.contains('nav-link')");
  t.equal(await phone.$eval('.menu-button', (e) => e.getAttribute('aria-expanded')), 'true', 'the menu button says the menu is open');
  await settled(true);
  t.pass('the menu shows the projects and their services, the focus on its first link');
  await phone.keyboard.press('Escape');
  await phone.waitForFunction("document.activeElement?.classList.contains('menu-button')");
  await settled(false);
  t.equal(await phone.$eval('.menu-button', (e) => e.getAttribute('aria-expanded')), 'false', 'Escape closes it, the focus back on the menu button');
  await phone.click('.menu-button');
  await settled(true);
  await phone.click(`.sidebar a[href="/services/${web.id}"]`);
  await phone.waitForFunction(`location.pathname === '/services/${web.id}' && document.querySelector('main h1')?.textContent.startsWith('web')`);
  t.equal(await phone.$eval('.menu-button', (e) => e.getAttribute('aria-expanded')), 'false', 'following a link closes the menu');
  t.equal(await overflow(phone), 0, 'the service fits the phone');
  await settled(false);
  t.equal(await visible(signOut), true, 'Sign out is on the screen of the service too');
  await phone.click('xpath/.//header//button[normalize-space(.)="Sign out"]');
  await phone.waitForSelector('#api-key');
  t.pass('signed out from the phone');
});

t.test('tabs: by keyboard, the selected one in the address, kept by a reload; times read "ago" with the exact one in datetime', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const context = await signedInContext(browser, s);
  const page = await open(context, s.url + '/installation', 1440, 'light');
  const selected = () => page.$eval('[role=tab][aria-selected=true]', (e) => e.textContent);
  const focused = () => page.evaluate("document.activeElement?.getAttribute('role') === 'tab' ? document.activeElement.textContent : null");

  t.equal(await selected(), 'Health', 'the first tab without ?tab=');
  t.same(await page.$$eval('[role=tab]', (els) => els.map((e) => e.getAttribute('tabindex'))), ['0', '-1', '-1', '-1', '-1', '-1'], 'one tab stop');
  await page.focus('[role=tab][aria-selected=true]');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#channels');
  t.same([await selected(), await focused(), new URL(page.url()).search], ['Notifications', 'Notifications', '?tab=notifications'], 'ArrowRight selects and focuses the next tab; the address says it');
  t.equal(await page.$eval('[role=tabpanel]', (e) => e.getAttribute('aria-labelledby')), await page.$eval('[role=tab][aria-selected=true]', (e) => e.id), 'the panel is named by its tab');
  await page.keyboard.press('End');
  await page.waitForSelector('#keys');
  t.same([await selected(), await focused()], ['API keys', 'API keys'], 'End: the last');
  await page.keyboard.press('ArrowRight');
  t.same([await selected(), await focused()], ['Health', 'Health'], 'ArrowRight on the last wraps to the first');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Home');
  t.equal(await selected(), 'Health', 'Home: the first');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#keys');
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate("document.activeElement?.getAttribute('role')"), 'tabpanel', 'Tab leaves the tabs for the panel');
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#keys');
  t.equal(await selected(), 'API keys', 'a reload keeps the tab');

  await page.goto(s.url + '/audit', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.audit-log time');
  const [text, datetime, title] = await page.$eval('.audit-log time', (e) => [e.textContent, e.getAttribute('datetime'), e.getAttribute('title')]);
  t.match(text, /^(just now|\d+ min ago)$/, 'a relative time');
  t.ok(datetime && !Number.isNaN(Date.parse(datetime)), 'the exact time in datetime');
  t.ok(title && title.length > 8, `and on hover (${title})`);
});
