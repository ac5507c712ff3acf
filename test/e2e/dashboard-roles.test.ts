import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, seriousViolations } from '../helpers/browser.js';
import { PASSWORD, newPage, signInWithPassword, texts } from '../helpers/people-screens.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('a viewer sees the project without its secrets and without a control that changes it; where they deploy, the controls are back', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const watched = await createProject(s, 'Watched');
  const run = await createProject(s, 'Run');
  const web = await createService(s, watched.id, { name: 'web', repoFullName: 'acme/web', branch: 'main', env: [{ key: 'API_TOKEN', value: 'tok-never-shown' }] });
  const api = await createService(s, run.id, { name: 'api', repoFullName: 'acme/api', branch: 'main', env: [{ key: 'PLAIN', value: 'seen-by-deployers' }] });
  const invitation = await s.call('POST', '/api/invitations', {
    body: { email: 'vi@example.com', role: 'member', projects: [{ projectId: watched.id, role: 'viewer' }, { projectId: run.id, role: 'deployer' }] },
  });
  const token = new URL(invitation.body.url).pathname.split('/').pop()!;
  t.equal((await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Vi', password: PASSWORD } })).status, 200);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const context = await browser.createBrowserContext();
  const page = await newPage(context, s, '/');
  await signInWithPassword(page, 'vi@example.com');

  await page.goto(`${s.url}/services/${web.id}?tab=variables`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#variables');
  t.same(await texts(page, '#variables ~ table th, section[aria-labelledby=variables] th'), ['API_TOKEN'], 'the variable is listed by name');
  t.match(await page.$eval('section[aria-labelledby=variables]', (e) => e.textContent), /hidden from viewers/, 'its value is said to be hidden');
  t.notOk((await page.content()).includes('tok-never-shown'), 'the value is nowhere in the page');
  t.equal(await page.$('section[aria-labelledby=variables] form'), null, 'no form to set one');
  t.equal(await page.$('section[aria-labelledby=variables] button.btn-danger, section[aria-labelledby=variables] [data-danger]'), null, 'no Remove');
  t.same(await seriousViolations(page), [], 'no serious accessibility violation');

  await page.goto(`${s.url}/services/${web.id}?tab=overview`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('main dl');
  t.notOk((await texts(page, 'button')).includes('Deploy'), 'no Deploy where they view');

  await page.goto(`${s.url}/services/${api.id}?tab=overview`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction("[...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Deploy')", { timeout: 15_000 });
  t.pass('Deploy where they deploy');
  await page.goto(`${s.url}/services/${api.id}?tab=variables`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('section[aria-labelledby=variables] form');
  t.notOk((await page.$eval('section[aria-labelledby=variables]', (e) => e.textContent))!.includes('hidden from viewers'), 'values there can be revealed');
});

t.test('two factors required: a person without them gets the one screen that turns them on, then the dashboard', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  const owner = { email: 'ada@example.com', name: 'Ada', password: PASSWORD };
  t.equal((await s.call('POST', '/api/users/owner', { body: owner })).status, 200);
  const invitation = await s.call('POST', '/api/invitations', { body: { email: 'bo@example.com', role: 'member', projects: [{ projectId: shop.id, role: 'deployer' }] } });
  const token = new URL(invitation.body.url).pathname.split('/').pop()!;
  t.equal((await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: 'Bo', password: PASSWORD } })).status, 200);
  t.equal((await s.call('PATCH', '/api/settings', { body: { requireTwoFactor: true } })).status, 200, 'the installation key turns it on');

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await newPage(await browser.createBrowserContext(), s, '/');
  await page.waitForSelector('#sign-in-email');
  await page.type('#sign-in-email', 'bo@example.com');
  await page.type('#sign-in-password', PASSWORD);
  await page.click('form[aria-label="Sign in with your e-mail"] button[type=submit]');
  await page.waitForSelector('xpath/.//h1[normalize-space(.)="Turn on two factors"]');
  t.equal(await page.$('header.top'), null, 'nothing else of the dashboard');
  t.same(await seriousViolations(page), [], 'no serious accessibility violation');
  await page.click('xpath/.//button[normalize-space(.)="Turn on two factors"]');
  const secret = await (await page.waitForSelector('.totp-secret'))!.evaluate((e) => e.textContent!.trim());
  await page.type('#totp-code', new TOTP({ secret: Secret.fromBase32(secret) }).generate());
  await page.click('form[aria-label="Confirm two factors"] button[type=submit]');
  await page.waitForSelector('xpath/.//button[normalize-space(.)="I have kept them"]');
  t.equal((await texts(page, '.recovery-codes li, .recovery-codes code')).length > 0, true, 'the recovery codes are shown before anything else');
  await Promise.all([page.waitForSelector('header.top'), page.click('xpath/.//button[normalize-space(.)="I have kept them"]')]);
  await page.waitForSelector('.card h2');
  t.same(await texts(page, '.card h2'), ['Shop'], 'then the dashboard, with her project');
});
