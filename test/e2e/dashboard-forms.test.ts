import t from 'tap';
import type { Page } from 'puppeteer-core';
import { createProject, createService } from '../helpers/api-suite.js';
import { testWebService } from '../helpers/http-resources.js';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { deployEnv, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface Write {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** Every write the page sends (its method, path and JSON body), as the browser sent it. */
function recordWrites(page: Page) {
  const writes: Write[] = [];
  page.on('request', (r) => {
    if (r.method() === 'GET' || r.method() === 'HEAD') return;
    const data = r.postData();
    writes.push({ method: r.method(), path: new URL(r.url()).pathname, body: data ? (JSON.parse(data) as Record<string, unknown>) : null });
  });
  const to = (method: string, path: string) => writes.filter((w) => w.method === method && w.path === path);
  const under = (method: string, prefix: string) => writes.filter((w) => w.method === method && w.path.startsWith(prefix));
  const sentOnce = async (what: string, find: () => Write | undefined): Promise<Write> => {
    for (let i = 0; i < 200; i++) {
      const found = find();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no ${what} was sent`);
  };
  return {
    to,
    /** The writes of `method` to anything under `prefix`. */
    under,
    /** The next write of `method` to `path` after the `seen` earlier ones, once the page has sent it. */
    next: (method: string, path: string, seen = to(method, path).length) => sentOnce(`${method} ${path}`, () => to(method, path)[seen]),
    /** The next write of `method` under `prefix` after the `seen` earlier ones, once the page has sent it. */
    nextUnder: (method: string, prefix: string, seen: number) => sentOnce(`${method} under ${prefix}`, () => under(method, prefix)[seen]),
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const valueOf = (page: Page, selector: string) => page.$eval(selector, (e) => (e as unknown as { value: string }).value);
/** Replaces what a field holds, as a person would (select all, type). */
async function retype(page: Page, selector: string, text: string) {
  await page.focus(selector);
  await page.$eval(selector, (e) => (e as unknown as { select(): void }).select());
  await page.keyboard.press('Backspace');
  await page.type(selector, text);
}
/** Where the focus is: `body` when it is outside the page, in the browser's own controls. */
const activeElement = (page: Page) =>
  page.evaluate(
    `(() => { const e = document.activeElement; return { id: e.id, text: (e.textContent ?? '').trim(), inDialog: Boolean(e.closest('dialog[open]')), body: e === document.body }; })()`,
  ) as Promise<{ id: string; text: string; inDialog: boolean; body: boolean }>;
/** Shows the panel of the installation's tab `label`, where the screen has tabs; waits for `ready` in it. */
async function showPanel(page: Page, label: string, ready: string) {
  const tab = await page.$(`xpath/.//*[@role="tab"][normalize-space(.)="${label}"]`);
  // A click in the DOM: scrolled into view, the tab can sit under the sticky top bar, where a mouse click would land.
  if (tab) await tab.evaluate((b) => (b as unknown as { click(): void }).click());
  await page.waitForSelector(ready);
}
/** Waits until `selector`'s text is `text`; says what it was instead if it never is. */
async function textBecomes(page: Page, selector: string, text: string) {
  try {
    await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(text)}`, { timeout: 10_000 });
  } catch {
    const was = await page.$eval(selector, (e) => e.textContent).catch(() => 'nothing');
    throw new Error(`${selector} says ${JSON.stringify(was)}, not ${JSON.stringify(text)}`);
  }
}
/** A field's refusal: its message, shown at it and read with it. */
async function fieldError(page: Page, id: string) {
  const message = await (await page.waitForSelector(`#${id}-error`))!.evaluate((e) => e.textContent ?? '');
  const field = await page.$eval(`#${id}`, (e) => [e.getAttribute('aria-invalid'), e.getAttribute('aria-describedby')]);
  return { message, invalid: field[0] === 'true', describedBy: field[1] };
}
/** No field shows the leftovers of a missing value. */
const junkValues = (page: Page) =>
  page.$$eval('main input, main select, main textarea', (els) =>
    els.map((e) => `${e.id}=${(e as unknown as { value: string }).value}`).filter((v) => /=(undefined|null|NaN)$|undefined|NaN/.test(v)),
  );

t.test('the dashboard’s forms send what a person changed, ask before what cannot be undone, and say each refusal at its field', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  const sent = recordWrites(page);
  const open = async (path: string, ready: string) => {
    await page.goto(s.url + path, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(ready);
  };

  await t.test('a typed confirmation by keyboard: Tab to it, Escape cancels and sends nothing, Enter works only after the right name', async (t) => {
    const doomed = await createProject(s, 'Doomed');
    await createService(s, doomed.id, { ...testWebService('site'), dockerImage: 'example/site:1' });
    await open('/', '.card h2');
    const deleteButton = 'Delete… Doomed';
    for (let i = 0; i < 150 && (await activeElement(page)).text !== deleteButton; i++) await page.keyboard.press('Tab');
    t.equal((await activeElement(page)).text, deleteButton, 'Tab reaches the project’s Delete button');

    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog.confirm[open]');
    t.equal(await page.$eval('dialog.confirm h2', (e) => e.textContent), 'Delete project Doomed and its service?', 'the dialog names what goes');
    t.match(await page.$eval('dialog.confirm', (e) => e.textContent), /Type Doomed to confirm/);
    t.ok((await activeElement(page)).inDialog, 'the focus is in the dialog, on the name to type');
    // The page behind a modal dialog is inert: Tab goes round the dialog's controls and the browser's own.
    const stops: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      const now = await activeElement(page);
      stops.push(now.inDialog ? now.text || 'the name field' : now.body ? 'the browser' : `OUTSIDE ${now.id || now.text.slice(0, 40)}`);
    }
    t.notOk(stops.some((stop) => stop.startsWith('OUTSIDE')), `Tab never reaches the page behind the dialog (${stops.join(', ')})`);
    t.ok(stops.filter((stop) => stop !== 'the browser').length >= 4, 'and comes back into it');
    t.same(await seriousViolations(page), [], 'the open dialog is accessible');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog.confirm', { hidden: true });
    t.equal((await activeElement(page)).text, deleteButton, 'Escape closes it with the focus back on the button that opened it');
    t.same(sent.to('DELETE', `/api/projects/${doomed.id}`), [], 'and nothing was sent');

    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog.confirm[open]');
    await page.keyboard.type('Doome');
    await page.keyboard.press('Enter');
    await pause(300);
    t.ok(await page.$('dialog.confirm[open]'), 'Enter with a wrong name does nothing');
    t.equal(await page.$eval('dialog.confirm button[type=submit]', (b) => b.hasAttribute('disabled')), true, 'the Delete button is disabled');
    t.same(sent.to('DELETE', `/api/projects/${doomed.id}`), [], 'nothing sent');
    await page.keyboard.type('d');
    await page.keyboard.press('Enter');
    const deletion = await sent.next('DELETE', `/api/projects/${doomed.id}`, 0);
    t.equal(deletion.body, null, 'the right name and Enter delete the project');
    await page.waitForFunction(`![...document.querySelectorAll('.card h2')].some((e) => e.textContent === 'Doomed')`);
    t.equal((await s.call('GET', `/api/projects/${doomed.id}`)).status, 404, 'the API no longer has it');
  });

  const project = await createProject(s, 'Forms');
  const web = await createService(s, project.id, { ...testWebService('web'), dockerImage: 'example/web:1', env: [{ key: 'GREETING', value: 'hi' }] });
  const servicePath = `/api/services/${web.id}`;

  await t.test('a new service sends only the fields filled in', async (t) => {
    await open('/', '.card h2');
    const field = (f: string) => `#new-${project.id}-${f}`;
    for (let i = 0; !(await page.$(`details[open] ${field('name')}`)) && i < 5; i++) {
      await (await page.waitForSelector(`xpath/.//li[h2[normalize-space(.)="Forms"]]//details[contains(@class, "new-service")]/summary`))!.click();
      await pause(200);
    }
    await page.type(field('name'), 'worker-one');
    await page.type(field('source'), 'example/worker:1');
    await page.click(`form[aria-label="New service of Forms"] button[type=submit]`);
    const created = await sent.next('POST', `/api/projects/${project.id}/services`, 0);
    t.same(created.body, { name: 'worker-one', repoUrl: 'docker-image', dockerImage: 'example/worker:1', env: [] }, 'no port, mode or branch that nobody set');
    await page.waitForFunction(`document.querySelector('main h1')?.textContent.startsWith('worker-one')`);
  });

  await t.test('a service for git push: no source field, its page shows the remote, no webhook settings', async (t) => {
    await open('/', '.card h2');
    const field = (f: string) => `#new-${project.id}-${f}`;
    for (let i = 0; !(await page.$(`details[open] ${field('name')}`)) && i < 5; i++) {
      await (await page.waitForSelector(`xpath/.//li[h2[normalize-space(.)="Forms"]]//details[contains(@class, "new-service")]/summary`))!.click();
      await pause(200);
    }
    await page.type(field('name'), 'pushed');
    await page.select(field('kind'), 'push');
    t.equal(await page.$(field('source')), null, 'nothing to fill in for its source');
    await page.click(`form[aria-label="New service of Forms"] button[type=submit]`);
    const created = await sent.next('POST', `/api/projects/${project.id}/services`, 1);
    t.same(created.body, { name: 'pushed', repoUrl: 'push', env: [] });
    await page.waitForFunction(`document.querySelector('main h1')?.textContent.startsWith('pushed')`);
    const facts = await (await page.waitForSelector('dl.facts'))!.evaluate((e) => e.textContent ?? '');
    t.match(facts, 'pushed to Slipway, branch main');
    t.match(facts, new RegExp(`git remote add slipway ${s.url.replace(/[.]/g, '\\.')}/git/[0-9a-f-]{36}\\.git`), 'the remote to add');
    await showPanel(page, 'Settings', 'section[aria-labelledby="settings"]');
    t.equal(await page.$('section[aria-labelledby="auto-deploy"]'), null, 'no webhooks for a service with no upstream');
  });

  await t.test('variables: one sent as typed, a pasted .env sends only what it changes, a key the API refuses is said at the key', async (t) => {
    await open(`/services/${web.id}?tab=variables`, '#var-key');
    t.same(await junkValues(page), [], 'no field shows undefined, null or NaN');
    t.match(await page.$eval('section[aria-labelledby="variables"]', (e) => e.textContent), /applies at the next deployment: the running release keeps the values it started with/, 'the form says when a change applies');
    await page.type('#var-key', 'lowercase');
    await page.type('#var-value', 'x');
    await page.click('section[aria-labelledby="variables"] form.inline button[type=submit]');
    const refused = await fieldError(page, 'var-key');
    t.match(refused.message, /\^\[A-Z_\]/, 'the API’s words, at the key');
    t.ok(refused.invalid && refused.describedBy === 'var-key-error', 'the key is marked invalid and described by its message');
    t.equal((await activeElement(page)).id, 'var-key', 'the focus goes to the field to correct');
    t.same(sent.to('POST', `${servicePath}/env`).at(-1)!.body, { key: 'lowercase', value: 'x' });

    await retype(page, '#var-key', 'SECOND');
    await page.click('section[aria-labelledby="variables"] form.inline button[type=submit]');
    await page.waitForSelector('xpath/.//th[text()="SECOND"]');
    t.equal(await page.$('#var-key-error'), null, 'the refusal is gone once saved');
    t.match(await page.$eval('section[aria-labelledby="variables"] [role=status]', (e) => e.textContent), /Saved SECOND: it applies at the next deployment/);

    const before = sent.to('POST', `${servicePath}/env`).length;
    await page.type('#env-paste', 'GREETING=hi\nSECOND=x\nTHIRD=3\n');
    await page.click('xpath/.//button[normalize-space(.)="Review changes"]');
    await page.click('xpath/.//button[normalize-space(.)="Save 1 change(s)"]');
    await page.waitForSelector('xpath/.//th[text()="THIRD"]');
    t.same(
      sent.to('POST', `${servicePath}/env`).slice(before).map((w) => w.body),
      [{ key: 'THIRD', value: '3' }],
      'the variables the file leaves as they are are not sent',
    );

    // A plain confirmation of a removal starts on Cancel: Enter there removes nothing.
    await page.click('xpath/.//tr[th[text()="SECOND"]]//button[contains(@class, "danger")]');
    await page.waitForSelector('dialog.confirm[open]');
    t.equal(await page.$eval('dialog.confirm h2', (e) => e.textContent), 'Remove the variable SECOND?');
    t.equal((await activeElement(page)).text, 'Cancel', 'the first stop is Cancel');
    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog.confirm', { hidden: true });
    t.same(sent.under('DELETE', `${servicePath}/env/`), [], 'Cancel sent nothing');
    await page.click('xpath/.//tr[th[text()="SECOND"]]//button[contains(@class, "danger")]');
    t.equal(await answerDialog(page), 'Remove the variable SECOND?', 'asked again, and answered yes');
    const removal = await sent.nextUnder('DELETE', `${servicePath}/env/`, 0);
    t.ok(removal, 'the removal is sent');
    await page.waitForFunction(`!document.evaluate('//th[text()="SECOND"]', document, null, 9, null).singleNodeValue`);
    t.pass('confirmed, the variable is removed');
  });

  await t.test('domains: the hostname alone; one the API refuses is said at the field', async (t) => {
    await showPanel(page, 'Domains', '#new-domain');
    await page.type('#new-domain', 'not a host');
    await page.click('section[aria-labelledby="domains"] form button[type=submit]');
    const refused = await fieldError(page, 'new-domain');
    t.ok(refused.message && refused.invalid, `said at the field: ${refused.message}`);
    await retype(page, '#new-domain', 'forms.dashboard.test');
    await page.click('section[aria-labelledby="domains"] form button[type=submit]');
    await page.waitForSelector('xpath/.//td[text()="forms.dashboard.test"]');
    t.same(sent.to('POST', `${servicePath}/domains`).at(-1)!.body, { hostname: 'forms.dashboard.test' });
  });

  await t.test('settings: a stopped service says changes wait for a deployment; a refused port is said at the port', async (t) => {
    const form = 'section[aria-labelledby="settings"]';
    await showPanel(page, 'Settings', form);
    t.match(await page.$eval(form, (e) => e.textContent), /web is not running: every change applies at its next deployment/, 'it says when changes apply');
    await retype(page, '#set-memory', '300m');
    await retype(page, '#set-port', '70000');
    await page.click(`${form} button[type=submit]`);
    const refused = await fieldError(page, 'set-port');
    t.ok(refused.invalid, `the port is marked: ${refused.message}`);
    t.equal(await page.$(`${form} p[role=alert]`), null, 'and no message at the top repeats it');
    t.same(await page.$('dialog.confirm[open]'), null, 'no restart to ask about: nothing runs');
    t.same(sent.to('PATCH', servicePath).at(-1)!.body, { internalPort: 70000, resources: { memory: '300m' } }, 'only the port and the limit were sent');
    await retype(page, '#set-port', '8000');
    await page.click(`${form} button[type=submit]`);
    t.same((await sent.next('PATCH', servicePath, 1)).body, { resources: { memory: '300m' } }, 'the port back as it was is not sent');
    await textBecomes(page, `${form} [role=status]`, 'Saved: the changes apply at the next deployment.');
  });

  await t.test('deleting a service names what goes and asks for its name', async (t) => {
    await open(`/services/${web.id}?tab=settings`, 'section[aria-labelledby="settings"]');
    await page.click('xpath/.//button[contains(., "Delete service…")]');
    const title = await (await page.waitForSelector('dialog.confirm[open] h2'))!.evaluate((e) => e.textContent);
    t.equal(title, 'Delete service web, its 1 domain and its 2 variables?');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog.confirm', { hidden: true });
    t.same(sent.to('DELETE', servicePath), [], 'Escape: nothing sent');
    await page.click('xpath/.//button[contains(., "Delete service…")]');
    await answerDialog(page, 'web');
    await page.waitForFunction(`location.pathname === '/'`);
    t.equal((await s.call('GET', servicePath)).status, 404, 'deleted, and the page went back to the projects');
  });

  await t.test('a database: its engine’s variables cannot be removed, no build command or health path, the schedule sends what changed', async (t) => {
    const db = await createService(s, project.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, env: [{ key: 'EXTRA', value: '1' }] });
    await open(`/services/${db.id}`, '[role=tab]');
    t.same(
      await page.$$eval('[role=tab]', (els) => els.map((e) => e.textContent)),
      ['Overview', 'Data', 'Console', 'Backups', 'Connect', 'Variables', 'Settings'],
      'a database’s own tabs, no build controls',
    );
    await showPanel(page, 'Variables', '#var-key');
    t.same(await junkValues(page), [], 'no field shows undefined, null or NaN');
    const removable = await page.$$eval('section[aria-labelledby="variables"] tr', (rows) =>
      rows.map((r) => [r.querySelector('th')?.textContent, Boolean(r.querySelector('button.danger'))]),
    );
    t.same(
      Object.fromEntries(removable),
      { POSTGRES_USER: false, POSTGRES_PASSWORD: false, POSTGRES_DB: false, DATABASE_URL: false, EXTRA: true },
      'only the variable a person added can be removed',
    );
    t.match(await page.$eval('section[aria-labelledby="variables"]', (e) => e.textContent), /POSTGRES_PASSWORD.*came with this Postgres database.*cannot be removed here/s, 'a note says why');
    await showPanel(page, 'Settings', 'section[aria-labelledby="settings"]');
    t.same(await junkValues(page), [], 'no settings field shows undefined, null or NaN');
    const fields = await page.$$eval('section[aria-labelledby="settings"] input', (els) => els.map((e) => e.id));
    t.notOk(fields.includes('set-build') || fields.includes('set-health'), `no build command or health path (${fields.join(', ')})`);

    await showPanel(page, 'Backups', '#backup-storage');
    t.same(await junkValues(page), [], 'no backup field shows undefined, null or NaN');
    await page.click('xpath/.//label[normalize-space(.)="Automatic backups"]/input');
    await page.click('xpath/.//button[normalize-space(.)="Save backup schedule"]');
    const saved = await sent.next('PUT', `/api/services/${db.id}/database/backups/settings`, 0);
    t.same(saved.body, { automaticEnabled: true }, 'the schedule sends the tier that was ticked, not where backups go');
    await page.waitForSelector('xpath/.//p[text()="Backup schedule saved."]');
    await page.click('xpath/.//label[normalize-space(.)="Automatic backups"]/input');
    await page.click('xpath/.//button[normalize-space(.)="Save backup schedule"]');
    t.same((await sent.next('PUT', `/api/services/${db.id}/database/backups/settings`, 1)).body, { automaticEnabled: false }, 'and untick it again after a save');

    await page.type('#import-url', 'postgresql://postgres:Secret-1@elsewhere:5432/app');
    await page.click('form[aria-label="New import"] button[type=submit]');
    t.equal(await (await page.waitForSelector('dialog.confirm[open] h2'))!.evaluate((e) => e.textContent), 'Import from postgresql://elsewhere:5432/app into this database?', 'the dialog names the source without its password');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog.confirm', { hidden: true });
    t.same(sent.to('POST', `/api/services/${db.id}/database/import/postgres-url`), [], 'Escape: no import');
    await page.click('form[aria-label="New import"] button[type=submit]');
    await answerDialog(page);
    t.same((await sent.next('POST', `/api/services/${db.id}/database/import/postgres-url`, 0)).body, { sourceUrl: 'postgresql://postgres:Secret-1@elsewhere:5432/app' });
  });

  await t.test('auto-deploy keeps what the form does not show, and leaves a followed branch out', async (t) => {
    const app = await createService(s, project.id, { name: 'app', repoUrl: 'https://git.example.com/acme/app.git', branch: 'main' });
    const hook = `/api/services/${app.id}/auto-deploy`;
    t.equal((await s.call('PUT', hook, { body: { enabled: false, provider: 'github', tagPattern: 'v*', watchPaths: ['src/**'] } })).status, 200);
    await open(`/services/${app.id}?tab=settings`, '#hook-provider');
    await page.waitForFunction(`document.querySelector('#hook-provider')?.value === 'github'`);
    await page.select('#hook-provider', 'gitlab');
    await page.click('xpath/.//section[@aria-labelledby="auto-deploy"]//button[normalize-space(.)="Turn on"]');
    const body = (await sent.next('PUT', hook, 0)).body!;
    t.match(body, { enabled: true, provider: 'gitlab', tagPattern: 'v*', watchPaths: ['src/**'] }, 'what the form shows, changed, and what it does not, kept');
    t.notOk('branch' in body, 'the branch follows the service’s: not sent');
    await page.waitForFunction(`document.querySelector('section[aria-labelledby="auto-deploy"] p')?.textContent.startsWith('On — gitlab')`);
    t.match((await s.call('GET', hook)).body.autoDeploy, { enabled: true, provider: 'gitlab', tagPattern: 'v*', watchPaths: ['src/**'], followsServiceBranch: true }, 'nothing the form does not show was reset');
  });

  await t.test('installation: settings, keys, channels, connections and the cluster send what was given; refusals at their fields', async (t) => {
    await open('/installation', 'main h1');
    await showPanel(page, 'Settings', '#setting-sessionMaxHours');
    t.same(await junkValues(page), [], 'no field shows undefined, null or NaN');
    await retype(page, '#setting-sessionMaxHours', '0');
    await page.click('xpath/.//section[@aria-labelledby="general"]//button[normalize-space(.)="Save settings"]');
    const refused = await fieldError(page, 'setting-sessionMaxHours');
    t.ok(refused.invalid, `the lifetime is refused at its field: ${refused.message}`);
    t.same(sent.to('PATCH', '/api/settings').at(-1)!.body, { sessionMaxHours: 0 }, 'only the changed setting is sent');
    await retype(page, '#setting-sessionMaxHours', '24');
    await page.click('xpath/.//section[@aria-labelledby="general"]//button[normalize-space(.)="Save settings"]');
    await page.waitForSelector('xpath/.//section[@aria-labelledby="general"]//p[text()="Saved."]');
    t.same(sent.to('PATCH', '/api/settings').at(-1)!.body, { sessionMaxHours: 24 });

    await showPanel(page, 'API keys', '#key-name');
    await page.type('#key-name', 'ci');
    await page.click('section[aria-labelledby=keys] form button[type=submit]');
    t.same((await sent.next('POST', '/api/keys', 0)).body, { name: 'ci', access: 'read' }, 'no project chosen: no projectIds sent');
    await page.waitForSelector('xpath/.//tr[td[1][text()="ci"]]//button');
    await page.click('xpath/.//tr[td[1][text()="ci"]]//button');
    await page.waitForSelector('dialog.confirm[open]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog.confirm', { hidden: true });
    t.same(sent.under('DELETE', '/api/keys/'), [], 'Escape: the key is not revoked');
    t.ok(((await s.call('GET', '/api/keys')).body.keys as { name: string; revokedAt: string | null }[]).find((k) => k.name === 'ci')?.revokedAt === null, 'and the API agrees');

    await showPanel(page, 'Notifications', '#channel-name');
    await page.type('#channel-name', 'hooks');
    await page.type('#channel-url', 'https://hooks.example.com/slipway');
    await page.click('form[aria-label="New channel"] button[type=submit]');
    t.same((await sent.next('POST', '/api/notification-channels', 0)).body, { name: 'hooks', type: 'webhook', config: { url: 'https://hooks.example.com/slipway' } }, 'events left as they were are not sent');

    await showPanel(page, 'Connections', 'section[aria-labelledby="ai-providers"]');
    await page.click('xpath/.//section[@aria-labelledby="ai-providers"]//details[1]/summary');
    await page.type('#ai-openai-baseUrl', 'ollama.local');
    await page.click('form[aria-label^="Connect OpenAI"] button[type=submit]');
    const ai = await sent.next('PUT', '/api/settings/ai-providers/openai', 0);
    t.same(ai.body, { baseUrl: 'ollama.local' }, 'the empty key and model are not sent');
    const badUrl = await fieldError(page, 'ai-openai-baseUrl');
    t.ok(badUrl.invalid && badUrl.message, `a URL the API refuses, at its field: ${badUrl.message}`);

    await showPanel(page, 'Cluster', 'form.cluster-init');
    await page.click('form.cluster-init button[type=submit]');
    t.equal(await answerDialog(page), 'Make this server a Docker Swarm manager?');
    t.same((await sent.next('POST', '/api/cluster', 0)).body, {}, 'no address given: none sent');
  });
});

t.test('a node is removed from the cluster only after its dialog', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  // A Swarm of two whose worker has been drained and has left: the API's answers stand in for one.
  const node = { id: 'n2', hostname: 'node-b', role: 'worker', leader: false, state: 'down', availability: 'drain', address: '10.0.0.2', cpus: 2, memoryBytes: 2 ** 31, labels: {}, tasks: [], databases: [], noNewPrivileges: true };
  const removals: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    const json = (body: unknown) => r.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    if (path === '/api/cluster' && r.method() === 'GET') return void json({ cluster: { advertiseAddress: '10.0.0.1', registry: '10.0.0.1:5443' } });
    if (path === '/api/cluster/nodes' && r.method() === 'GET') return void json({ nodes: [node] });
    if (path === '/api/cluster/nodes/n2' && r.method() === 'DELETE') return void (removals.push(path), json({ ok: true }));
    void r.continue();
  });
  await page.goto(s.url + '/installation', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('main h1');
  await showPanel(page, 'Cluster', 'section[aria-labelledby="cluster"]');
  const remove = 'xpath/.//section[@aria-labelledby="cluster"]//button[contains(@class, "danger")]';
  await (await page.waitForSelector(remove))!.click();
  t.equal(await (await page.waitForSelector('dialog.confirm[open] h2'))!.evaluate((e) => e.textContent), 'Remove the server node-b from the cluster?');
  t.equal(await page.$eval('dialog.confirm button[type=submit]', (b) => b.className), 'danger', 'a danger button');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog.confirm', { hidden: true });
  t.same(removals, [], 'Escape: nothing sent');
  await (await page.waitForSelector(remove))!.click();
  await answerDialog(page);
  for (let i = 0; i < 50 && removals.length === 0; i++) await pause(50);
  t.same(removals, ['/api/cluster/nodes/n2'], 'confirmed: the node is removed');
});

t.test('a running service: new limits restart it, so the form asks first and says what happened', { skip: requireChromium() || (await requireDocker()) }, async (t) => {
  const { env } = await deployEnv();
  const s: TestServer = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Restarts');
  t.teardown(() => removeProjectLeftovers(project.id));
  const web = await createService(s, project.id, testWebService('web'));
  const queued = (await s.call('POST', `/api/services/${web.id}/deployments`)).body.deployment;
  t.equal((await waitForDeployment(s, web.id, queued.id)).status, 'succeeded');
  for (let i = 0; i < 100 && !((await s.call('GET', `/api/services/${web.id}/releases`)).body.releases as { current: boolean }[]).some((r) => r.current); i++) await pause(100);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  const sent = recordWrites(page);
  const form = 'section[aria-labelledby="settings"]';
  await page.goto(`${s.url}/services/${web.id}?tab=settings`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(`document.querySelector('${form}')?.textContent.includes('restarts with them')`);
  t.match(await page.$eval(form, (e) => e.textContent), /Limits and the health check apply at once: web restarts with them \(a config deployment\)\. Everything else applies at the next deployment\./);

  await retype(page, '#set-memory', '256m');
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector('dialog.confirm[open]');
  t.equal(await page.$eval('dialog.confirm h2', (e) => e.textContent), 'Saving new limits restarts web now (a config deployment). Continue?');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog.confirm', { hidden: true });
  t.same(sent.to('PATCH', `/api/services/${web.id}`), [], 'Escape: nothing sent, nothing restarted');
  t.equal(await valueOf(page, '#set-memory'), '256m', 'the change is still in the form');

  const remade = await page.$('#set-releases');
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector('dialog.confirm[open]');
  t.equal((await activeElement(page)).text, 'Save and restart', 'a question that destroys nothing starts on its button');
  await page.keyboard.press('Enter');
  t.same((await sent.next('PATCH', `/api/services/${web.id}`, 0)).body, { resources: { memory: '256m' } });
  await textBecomes(page, `${form} [role=status]`, 'Saved. web restarts now with the new limits (a config deployment).');
  const deployments = (await s.call('GET', `/api/services/${web.id}/deployments`)).body.deployments as { kind: string }[];
  t.equal(deployments[0]?.kind, 'config', 'the API started the config deployment the form spoke of');

  // The page reads the service again and makes the form anew from it: the next change goes to the new one.
  await page.waitForFunction((e: { isConnected: boolean }) => !e.isConnected, {}, remade);
  t.equal(await valueOf(page, '#set-memory'), '256m', 'the new form shows the saved limit');
  await retype(page, '#set-releases', '4');
  await page.click(`${form} button[type=submit]`);
  t.same((await sent.next('PATCH', `/api/services/${web.id}`, 1)).body, { releasesKept: 4 });
  t.equal(await page.$('dialog.confirm[open]'), null, 'a setting that waits for the next deployment asks nothing');
  await textBecomes(page, `${form} [role=status]`, 'Saved: the changes apply at the next deployment.');
});
