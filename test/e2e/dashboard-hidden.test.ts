import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, signedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';

// The page's EventSources, as the app makes them: whether each is still open.
const TRACK_STREAMS = `(() => {
  const Native = window.EventSource;
  window.streams = [];
  window.EventSource = class extends Native { constructor(...args) { super(...args); window.streams.push(this); } };
})()`;
const setVisibility = (state: 'hidden' | 'visible') =>
  `Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true }); document.dispatchEvent(new Event('visibilitychange'))`;

t.test('a hidden page gives its streams back and catches up when it shows again', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  await createProject(s, 'Seen');
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  await page.evaluateOnNewDocument(TRACK_STREAMS);
  await page.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
  await page.waitForFunction("window.streams.some((e) => e.url.includes('/api/changes') && e.readyState === 1)");

  await page.evaluate(setVisibility('hidden'));
  await page.waitForFunction('window.streams.every((e) => e.readyState === 2)');
  t.pass('hidden: every stream is closed (a browser shares six connections per server among all its tabs)');
  await createProject(s, 'Made while hidden');

  await page.evaluate(setVisibility('visible'));
  await page.waitForFunction("document.querySelector('main')?.textContent.includes('Made while hidden')", { timeout: 30_000 });
  t.pass('shown again: what changed meanwhile is on the page');
  t.ok(await page.evaluate("window.streams.at(-1).url.includes('after=')"), 'the feed went on after the last change it heard');
});

t.test('the installation follows keys made elsewhere', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  await page.goto(s.url + '/installation?tab=keys', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('main h1');
  t.equal((await s.call('POST', '/api/keys', { body: { name: 'made-by-the-cli', access: 'read', projectIds: null } })).status, 200);
  await page.waitForFunction("document.querySelector('main')?.textContent.includes('made-by-the-cli')", { timeout: 30_000 });
  t.pass('a key made through the API appears without a reload');
});
