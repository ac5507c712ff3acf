import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage, signInWithKey } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('the dashboard in a real Chromium: sign-in, projects, keys and scopes', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());

  const mine = await createProject(s, 'Mine');
  await createProject(s, 'Theirs');

  const signedIn = (key: string) => signedInPage(browser, s.url, key);

  await t.test('the sign-in page: strict CSP, accessible, a wrong key is said where it was typed', async (t) => {
    const page = await (await browser.createBrowserContext()).newPage();
    const answer = await page.goto(s.url + '/', { waitUntil: 'networkidle0' });
    t.match(answer!.headers()['content-security-policy'], /script-src 'self'/);
    t.notMatch(answer!.headers()['content-security-policy'], /unsafe-inline/);
    t.same(await seriousViolations(page), [], 'no serious accessibility violation');
    await signInWithKey(page, 'slw_wrong');
    await page.waitForSelector('[role=alert]');
    t.match(await page.$eval('[role=alert]', (e) => e.textContent), /unknown or revoked API key/);
    const stored = await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
    t.notMatch(stored, /slw_/, 'no key in storage, and the session cookie is not readable by scripts');
  });

  await t.test('a write key: every project, create one', async (t) => {
    const page = await signedIn(s.key);
    await page.waitForSelector('.card h2');
    const names = await page.$$eval('.card h2', (els) => els.map((e) => e.textContent));
    t.same(names.sort(), ['Mine', 'Theirs']);
    t.same(await seriousViolations(page), [], 'the projects screen is accessible');
    await page.type('#new-project', 'Made in the browser');
    await page.click('form.inline button[type=submit]');
    await page.waitForFunction("[...document.querySelectorAll('.card h2')].some((e) => e.textContent === 'Made in the browser')");
    const projects = (await s.call('GET', '/api/projects')).body.projects as { name: string }[];
    t.ok(projects.some((p) => p.name === 'Made in the browser'), 'the API has it');
  });

  await t.test('a read key sees no write controls; a scoped key sees only its project', async (t) => {
    const reader = await signedIn((await createKey(s, 'read', null)).secret);
    await reader.waitForSelector('.card h2');
    t.equal(await reader.$('#new-project'), null, 'no create form');
    t.equal(await reader.$('button.danger'), null, 'no delete buttons');
    const web = await createService(s, mine.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'example/web:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [{ key: 'GREETING', value: 'hi' }] });
    // Signed in, a page keeps the change feed open: the network is never idle, so the tests wait for what they read.
    await reader.goto(`${s.url}/services/${web.id}`, { waitUntil: 'domcontentloaded' });
    await reader.waitForSelector('main h1');
    const serviceTabs = await reader.$$eval('[role=tab]', (els) => els.map((e) => e.textContent ?? ''));
    t.same(serviceTabs, ['Overview', 'Deployments', 'Logs', 'Jobs', 'Variables', 'Domains', 'Releases', 'Settings'], 'the service in tabs (no Terminal: a read key may not deploy)');
    for (const tab of serviceTabs) {
      await reader.click(`xpath/.//button[@role="tab"][normalize-space(.)="${tab}"]`);
      await reader.waitForFunction(`document.querySelector('[role=tab][aria-selected=true]')?.textContent === ${JSON.stringify(tab)}`);
      const buttons = await reader.$$eval('main button:not([role=tab])', (els) => els.map((e) => e.textContent?.trim()));
      t.same(buttons.filter((b) => !/^(Log|Reveal.*)$/.test(b ?? '')), [], `${tab}: only reading buttons (${buttons.join(', ')})`);
      const fields = await reader.$$eval('main form input:not([type=search]):not([disabled]), main textarea:not([disabled])', (els) => els.map((e) => e.outerHTML));
      t.same(fields, [], `${tab}: no field to change anything (settings are shown disabled)`);
    }
    await reader.goto(`${s.url}/installation`, { waitUntil: 'domcontentloaded' });
    await reader.waitForSelector('main h1');
    const tabs = await reader.$$eval('[role=tab]', (els) => els.map((e) => e.textContent ?? ''));
    t.same(tabs, ['Health', 'Notifications', 'Cluster'], 'no settings, connections or keys tabs');
    for (const tab of tabs) {
      await reader.click(`xpath/.//button[@role="tab"][normalize-space(.)="${tab}"]`);
      await reader.waitForFunction(`document.querySelector('[role=tab][aria-selected=true]')?.textContent === ${JSON.stringify(tab)} && document.querySelector('[role=tabpanel] h2')`);
      t.equal(await reader.$('main form, main button.danger, #key-name'), null, `${tab}: nothing to change`);
    }
    const scoped = await signedIn((await createKey(s, 'write', [mine.id])).secret);
    await scoped.waitForSelector('.card h2');
    t.same(await scoped.$$eval('.card h2', (els) => els.map((e) => e.textContent)), ['Mine']);
  });

  await t.test('installation: a key created with a scope is shown once and can be revoked; the audit log shows it; both screens accessible', async (t) => {
    const page = await signedIn(s.key);
    await page.goto(s.url + '/installation?tab=keys', { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#key-name');
    t.same(await seriousViolations(page), [], 'the installation screen is accessible');
    await page.type('#key-name', 'from-the-browser');
    await page.select('#key-access', 'write');
    await page.click('section[aria-labelledby=keys] form button[type=submit]');
    await page.waitForSelector('.secret code');
    const secret = await page.$eval('.secret code', (e) => e.textContent ?? '');
    t.match(secret, /^slw_/, 'the new key is shown');
    t.equal((await s.call('GET', '/api/projects', { key: secret })).status, 200, 'and works');
    const row = await page.waitForSelector('xpath/.//tr[td[1][text()="from-the-browser"]]//button');
    await row!.click();
    t.equal(await answerDialog(page), 'Revoke the API key from-the-browser?', 'the dialog names the key');
    await page.waitForSelector('xpath/.//tr[td[1][text()="from-the-browser"]][contains(@class, "revoked")]');
    t.equal((await s.call('GET', '/api/projects', { key: secret })).status, 401, 'revoked');
    await page.click('xpath/.//button[@role="tab"][normalize-space(.)="Settings"]');
    const idle = await page.waitForSelector('#setting-sessionIdleMinutes');
    await idle!.click({ count: 3 });
    await page.keyboard.type('30');
    await page.click('xpath/.//section[@aria-labelledby="general"]//button[normalize-space(.)="Save settings"]');
    await page.waitForSelector('xpath/.//section[@aria-labelledby="general"]//p[text()="Saved."]');
    t.equal((await s.call('GET', '/api/settings')).body.settings.sessionIdleMinutes, 30, 'a setting changed from the page');
    await page.goto(s.url + '/audit', { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.audit-log');
    await page.type('#filter-type', 'ApiKeyRevoked');
    await page.keyboard.press('Tab');
    const revokedShown = "[...document.querySelectorAll('.audit-log .audit-sentence')].some((e) => e.textContent === 'bootstrap revoked the key from-the-browser')";
    // When it is not shown, say what is: a bare timeout told nothing in two loaded runs.
    await page.waitForFunction(revokedShown).catch(async (error: unknown) => {
      const shown = await page.evaluate("[...document.querySelectorAll('.audit-log .audit-sentence')].map((e) => e.textContent).join(' | ') + ' @ ' + location.href");
      throw new Error(`${String(error)}; the audit log shows: ${String(shown)}`);
    });
    t.same(await seriousViolations(page), [], 'the audit log screen is accessible');
    await page.goto(s.url + '/history', { waitUntil: 'domcontentloaded' });
    await page.waitForFunction("document.querySelector('main h1')?.textContent === 'Audit log'");
    t.pass('its former address /history still opens it');
  });

  await t.test('the audit log in sentences: newest first, keys and services by name, one entry per request, the raw event a click away, live, on a phone, in light and dark', async (t) => {
    const audited = await createProject(s, 'Audited');
    const ci = (await s.call('POST', '/api/keys', { body: { name: 'ci', access: 'write', projectIds: [audited.id] } })).body.secret as string;
    const asCi = (method: string, path: string, body: unknown) => s.call(method, path, { key: ci, body });
    const created = await asCi('POST', `/api/projects/${audited.id}/services`, { name: 'audit-web', repoUrl: 'docker-image', dockerImage: 'example/web:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] });
    const serviceId = created.body.service.id as string;
    await asCi('POST', `/api/services/${serviceId}/env`, { key: 'DATABASE_URL', value: 'postgres://db' });
    await asCi('POST', `/api/services/${serviceId}/domains`, { hostname: 'shop.example.com' });

    const page = await signedIn(s.key);
    await page.goto(s.url + '/audit', { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.audit-log .audit-sentence');
    const sentences = () => page.$$eval('.audit-log > li .audit-sentence', (els) => els.map((e) => e.textContent ?? ''));
    const shown = await sentences();
    const at = (sentence: string) => shown.indexOf(sentence);
    t.ok(at('ci added the domain shop.example.com to audit-web') >= 0, `the key and the service by their names (${shown.slice(0, 4).join(' | ')})`);
    t.ok(at('ci added the domain shop.example.com to audit-web') < at('ci set DATABASE_URL on audit-web'), 'newest first');
    t.ok(at('ci set DATABASE_URL on audit-web') < at('ci created the service audit-web in Audited'), 'newest first, further down');
    t.ok(shown.every((x) => !/key:|[0-9a-f]{8}-[0-9a-f]{4}/.test(x)), 'no ids in the sentences');
    const times = await page.$$eval('.audit-log > li > details > summary time', (els) => els.map((e) => e.getAttribute('datetime') ?? ''));
    t.same(times, [...times].sort().reverse(), 'every entry newer than the next');
    const [ago, exact] = await page.$eval('.audit-log > li > details > summary time', (e) => [e.textContent ?? '', e.getAttribute('title') ?? '']);
    t.match(ago, /^(just now|\d+ min ago)$/, 'the time relative to now…');
    t.match(exact, /\d{1,2}:\d{2}:\d{2}/, '…and exact on hover');

    const entry = `xpath/.//ol[contains(@class, "audit-log")]/li[.//span[@class="audit-sentence"][text()="ci created the service audit-web in Audited"]]`;
    const creation = (await page.waitForSelector(entry))!;
    t.match(await creation.$eval('.audit-more', (e) => e.textContent), /^and \d+ more$/, 'the request’s other events folded under its headline');
    await creation.$eval('summary', (e) => (e as unknown as { click(): void }).click());
    await page.waitForSelector(`${entry}/details[@open]//pre`);
    const raw = await creation.$eval('.audit-entry', (e) => e.textContent ?? '');
    t.match(raw, 'ProjectServiceAttached', 'opened: every event of the request…');
    t.match(raw, 'ServiceCreated', '…by its type…');
    t.match(raw, `service-${serviceId}`, '…its stream…');
    t.match(raw, '"name": "audit-web"', '…and its data');

    await asCi('POST', `/api/services/${serviceId}/env`, { key: 'LIVE_FLAG', value: 'on' });
    await page.waitForFunction("document.querySelector('.audit-log > li .audit-sentence')?.textContent === 'ci set LIVE_FLAG on audit-web'");
    t.pass('what happens meanwhile appears at the top');
    t.ok(await page.$(`${entry}/details[@open]`), 'and the entry opened stays open');


    // A page per theme, its scheme chosen before it draws: colours change with a transition axe would catch midway.
    for (const theme of ['light', 'dark']) {
      const phone = await signedIn(s.key);
      await phone.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
      await phone.setViewport({ width: 390, height: 844 });
      await phone.goto(s.url + '/audit', { waitUntil: 'domcontentloaded' });
      await (await phone.waitForSelector(entry))!.$eval('summary', (e) => (e as unknown as { click(): void }).click());
      await phone.waitForSelector(`${entry}/details[@open]//pre`);
      t.equal(await phone.evaluate('document.documentElement.scrollWidth - innerWidth'), 0, `${theme}: nothing wider than a phone, an entry open`);
      t.same(await seriousViolations(phone), [], `${theme}: no serious accessibility violation`);
      await phone.close();
    }

    // More than a page (100 events) after the creation: the open page keeps it below what joined on top; a page
    // opened now starts from the newest, and goes back on request.
    // Ten at a time (what a script would do), the last on its own, so it is the newest.
    const statuses: number[] = [];
    for (let i = 0; i < 99; i += 10) {
      const batch = Array.from({ length: Math.min(10, 99 - i) }, (_, j) => asCi('POST', `/api/services/${serviceId}/env`, { key: `BULK_${i + j}`, value: 'x' }));
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    statuses.push((await asCi('POST', `/api/services/${serviceId}/env`, { key: 'BULK_99', value: 'x' })).status);
    t.same([...new Set(statuses)], [200], 'a hundred variables set');
    const newestIsLast = "document.querySelector('.audit-log > li .audit-sentence')?.textContent === 'ci set BULK_99 on audit-web'";
    await page.waitForFunction(newestIsLast);
    t.ok(await page.$(entry), 'the open page keeps what it listed below what joined');
    await page.close();
    const later = await signedIn(s.key);
    await later.goto(s.url + '/audit', { waitUntil: 'domcontentloaded' });
    await later.waitForFunction(newestIsLast);
    t.equal(await later.$(entry), null, 'a new page lists the newest 100 events: the creation is older');
    const before = await later.$$eval('.audit-log > li', (els) => els.length);
    await later.click('xpath/.//button[normalize-space(.)="Load older"]');
    await later.waitForSelector(entry);
    t.ok((await later.$$eval('.audit-log > li', (els) => els.length)) > before, 'Load older adds the page before it at the bottom');
    await later.close();
  });

  await t.test('keyboard only: sign in, skip to content, every stop named and visible, create a project, follow a link', async (t) => {
    const page = await (await browser.createBrowserContext()).newPage();
    await page.goto(s.url + '/', { waitUntil: 'networkidle0' });
    t.equal(await page.evaluate('document.activeElement.id'), 'sign-in-email', 'the e-mail field has the focus');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Use an API key', 'past the password and its button, the way to a key');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.id'), 'api-key', 'it opens on the key field');
    await page.keyboard.type(s.key);
    await Promise.all([page.waitForSelector('.card h2'), page.keyboard.press('Enter')]);
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content', 'the first stop skips the navigation');
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.id === 'content'");
    const stops: string[] = [];
    for (let i = 0; i < 40 && (await page.evaluate('document.activeElement.id')) !== 'new-project'; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate<[], () => string>(`(() => {
          const e = document.activeElement;
          const r = e.getBoundingClientRect();
          const name = (e.labels?.[0]?.textContent ?? e.getAttribute('aria-label') ?? e.textContent ?? '').trim();
          return (r.width > 0 && r.height > 0 ? '' : 'INVISIBLE ') + (name || 'UNNAMED ' + e.outerHTML.slice(0, 60));
        })()`),
      );
    }
    t.equal(await page.evaluate('document.activeElement.id'), 'new-project', `the create field is reached by Tab (${stops.length} stops)`);
    t.same(stops.filter((stop) => /^(INVISIBLE|UNNAMED)/.test(stop)), [], 'every stop on the way is visible and named');
    await page.keyboard.type('By keyboard');
    await page.keyboard.press('Enter');
    await page.waitForFunction("[...document.querySelectorAll('.card h2')].some((e) => e.textContent === 'By keyboard')");
    await page.focus('nav a[href="/audit"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.id === 'content' && document.querySelector('main h1')?.textContent === 'Audit log'");
    t.pass('following a link moves the focus to the new screen');
  });

  await t.test('a service the API refuses is said at its form, and nothing is created', async (t) => {
    const page = await signedIn(s.key);
    const form = `form[aria-label="New service of Mine"]`;
    await (await page.waitForSelector(`xpath/.//li[h2[normalize-space(.)="Mine"]]//details[contains(@class, "new-service")]/summary`))!.click();
    await page.type(`#new-${mine.id}-name`, 'web');
    await page.type(`#new-${mine.id}-source`, 'example/other:2');
    await page.click(`${form} button[type=submit]`);
    const alert = await page.waitForSelector(`${form} [role=alert]`);
    t.match(await alert!.evaluate((e) => e.textContent), /web/, 'the name already taken, said at the form');
    const services = (await s.call('GET', `/api/projects/${mine.id}`)).body.project.services as { name: string }[];
    t.same(services.map((x) => x.name), ['web'], 'no second service');
  });

  await t.test('the service settings form sends only what a person changed; a field left alone keeps its value', async (t) => {
    const api = await createService(s, mine.id, {
      name: 'settings-probe', repoUrl: 'docker-image', dockerImage: 'example/api:1', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [],
      resources: { memory: '256m', pids: 256 },
    });
    const before = (await s.call('GET', `/api/services/${api.id}`)).body.service;
    const page = await signedIn(s.key);
    const patches: unknown[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH') patches.push(JSON.parse(r.postData() ?? 'null'));
    });
    await page.goto(`${s.url}/services/${api.id}?tab=settings`, { waitUntil: 'domcontentloaded' });
    const form = 'section[aria-labelledby="settings"]';
    await page.waitForSelector(`${form} #set-releases`);
    const values = await page.$$eval(`${form} input`, (els) => els.map((e) => (e as unknown as { value: string }).value));
    t.notOk(values.some((v) => /^(undefined|null|NaN)$/.test(v)), `no field shows undefined, null or NaN (${values.join(' | ')})`);
    t.equal(await page.$eval(`${form} #set-cpus`, (e) => (e as unknown as { value: string }).value), '', 'no CPU limit: an empty field');

    const save = async (note: RegExp, remade = true) => {
      const field = await page.$(`${form} #set-releases`);
      await page.click(`${form} button[type=submit]`);
      await page.waitForFunction(`new RegExp(${JSON.stringify(note.source)}).test(document.querySelector('${form} [role=status]')?.textContent ?? '')`);
      // The page reloads the service and makes the form again from it: the next step acts on the new one.
      if (remade) await page.waitForFunction((e: { isConnected: boolean }) => !e.isConnected, {}, field);
    };
    await page.click(`${form} #set-releases`, { clickCount: 3 });
    await page.type(`${form} #set-releases`, '7');
    await save(/apply at the next deployment/);
    t.same(patches, [{ releasesKept: 7 }], 'changing Releases kept sends that field alone');
    const after = (await s.call('GET', `/api/services/${api.id}`)).body.service;
    t.equal(after.releasesKept, 7);
    t.same([after.healthCheck, after.resources, after.internalPort], [before.healthCheck, before.resources, before.internalPort], 'health check, limits and port untouched');

    const shows = (field: string, value: string) => page.waitForFunction(`document.querySelector('${form} #${field}')?.value === ${JSON.stringify(value)}`);
    await shows('set-releases', '7');
    await page.click(`${form} #set-memory`, { clickCount: 3 });
    await page.type(`${form} #set-memory`, '512m');
    await save(/apply at the next deployment/);
    t.same(patches[1], { resources: { memory: '512m', pids: 256 } }, 'a new memory limit keeps the limits the form does not show');
    t.same((await s.call('GET', `/api/services/${api.id}`)).body.service.resources, { memory: '512m', pids: 256 });

    await shows('set-memory', '512m');
    await save(/Nothing changed/, false);
    t.equal(patches.length, 2, 'saving an untouched form sends nothing');
    t.same(await page.$$eval(`${form} #set-install, ${form} #set-build, ${form} #set-start`, (els) => els.length), 0, 'an image has no build commands to set');

    const db = await createService(s, mine.id, { name: 'settings-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, env: [] });
    await page.goto(`${s.url}/services/${db.id}?tab=settings`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`${form} #set-memory`);
    const shown = await page.$$eval(`${form} input`, (els) => els.map((e) => e.id));
    t.same(shown.filter((id) => ['set-install', 'set-build', 'set-start', 'set-port', 'set-health'].includes(id)), [], `a database shows no commands, port or health path (${shown.join(', ')})`);
  });

  await t.test('revoking the key ends the session: the next action goes back to sign-in', async (t) => {
    const key = await createKey(s, 'write', null);
    const page = await signedIn(key.secret);
    await page.waitForSelector('.card h2');
    t.equal((await s.call('DELETE', `/api/keys/${key.key.id}`)).status, 200);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#api-key');
    t.pass('signed out');
  });
});
