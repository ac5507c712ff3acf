import { Secret, TOTP } from 'otpauth';
import type { Page } from 'puppeteer-core';
import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, seriousViolations } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';

const PASSWORD = 'a long enough password';
const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;

t.test('a person joins from an invitation link, sees their projects only, signs out and in with e-mail and password', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  await createProject(s, 'Not hers');
  const invited = await s.call('POST', '/api/invitations', { body: { email: 'grace@example.com', role: 'member', projects: [{ projectId: shop.id, role: 'deployer' }] } });
  const link = invited.body.url as string;
  const browser = await launchChromium();
  t.teardown(() => browser.close());

  const page = await (await browser.createBrowserContext()).newPage();
  await page.setViewport({ width: 390, height: 844 });
  await page.goto(link, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('form[aria-label="Accept the invitation"]');
  t.equal(await page.evaluate('document.activeElement.id'), 'invite-name', 'the name field has the focus');
  t.equal(await overflow(page), 0, 'the page fits a phone');
  t.same(await seriousViolations(page), [], 'no serious accessibility violation');
  await page.type('#invite-name', 'Grace Hopper');
  await page.type('#invite-password', PASSWORD);
  await page.type('#invite-password-again', `${PASSWORD}!`);
  await page.click('form[aria-label="Accept the invitation"] button[type=submit]');
  t.match(await (await page.waitForSelector('[role=alert]'))!.evaluate((e) => e.textContent), /differ/, 'two different passwords are said');
  await page.evaluate("document.querySelector('#invite-password-again').value = ''");
  await page.type('#invite-password-again', PASSWORD);
  await Promise.all([page.waitForSelector('header.top'), page.click('form[aria-label="Accept the invitation"] button[type=submit]')]);
  t.equal(new URL(page.url()).pathname, '/', 'signed in on the projects; the token is gone from the address');
  await page.waitForSelector('.card h2');
  t.same(await page.$$eval('.card h2', (els) => els.map((e) => e.textContent?.trim())), ['Shop'], 'her one project');
  t.match(await page.$eval('.who', (e) => e.textContent), /Grace Hopper · member/, 'the bar names her');
  await page.goto(new URL(link).origin + '/installation', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('[role=tab]');
  t.same(await page.$$eval('[role=tab]', (els) => els.map((e) => e.textContent)), ['Health', 'Notifications'], 'no installation tab that is the owners’');

  await page.goto(link, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#invite-name');
  await page.type('#invite-name', 'Someone else');
  await page.type('#invite-password', PASSWORD);
  await page.type('#invite-password-again', PASSWORD);
  await page.click('form[aria-label="Accept the invitation"] button[type=submit]');
  t.match(await (await page.waitForSelector('[role=alert]'))!.evaluate((e) => e.textContent), /used, revoked or has expired/, 'a used link says so');

  await page.goto(new URL(link).origin + '/', { waitUntil: 'domcontentloaded' });
  await (await page.waitForSelector('xpath/.//header//button[normalize-space(.)="Sign out"]'))!.click();
  await page.waitForSelector('#sign-in-email');
  t.same(await seriousViolations(page), [], 'the sign-in page: no serious accessibility violation');
  t.equal(await overflow(page), 0, 'and it fits a phone');
  await page.type('#sign-in-email', 'grace@example.com');
  await page.type('#sign-in-password', 'not her password');
  await page.click('form[aria-label="Sign in with your e-mail"] button[type=submit]');
  t.match(await (await page.waitForSelector('[role=alert]'))!.evaluate((e) => e.textContent), /unknown e-mail or wrong password/, 'a wrong password is said');
  t.equal(await page.$eval('#sign-in-password', (e) => (e as unknown as { value: string }).value), '', 'and the password field is emptied');
  await page.type('#sign-in-password', PASSWORD);
  await Promise.all([page.waitForSelector('header.top'), page.click('form[aria-label="Sign in with your e-mail"] button[type=submit]')]);
  await page.waitForSelector('.card h2');
  t.same(await page.$$eval('.card h2', (els) => els.map((e) => e.textContent?.trim())), ['Shop'], 'signed in again, her project');
  const cookieSeen = await page.evaluate('document.cookie + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
  t.notMatch(cookieSeen, new RegExp(PASSWORD), 'the password is kept nowhere in the page');
});

t.test('with two factors on, the sign-in asks for the code after the password, and takes it', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  await s.call('POST', '/api/users/owner', { body: { email: 'ada@example.com', name: 'Ada', password: PASSWORD } });
  const signedIn = await s.call('POST', '/api/sessions', { key: null, body: { email: 'ada@example.com', password: PASSWORD } });
  const session = { key: null, headers: { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': signedIn.body.session.csrfToken as string } };
  const { secret } = (await s.call('POST', '/api/users/me/totp', session)).body as { secret: string };
  const app = new TOTP({ secret: Secret.fromBase32(secret) });
  await s.call('POST', '/api/users/me/totp/confirm', { ...session, body: { code: app.generate() } });
  const browser = await launchChromium();
  t.teardown(() => browser.close());

  const page = await (await browser.createBrowserContext()).newPage();
  await page.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#sign-in-email');
  await page.type('#sign-in-email', 'ada@example.com');
  await page.type('#sign-in-password', PASSWORD);
  await page.click('form[aria-label="Sign in with your e-mail"] button[type=submit]');
  await page.waitForSelector('#sign-in-code');
  t.equal(await page.evaluate('document.activeElement.id'), 'sign-in-code', 'the code field appears, focused');
  t.equal(await page.$('[role=alert]'), null, 'no refusal is shown: it only asks for the code');
  t.same(await seriousViolations(page), [], 'no serious accessibility violation');
  await page.type('#sign-in-code', app.generate({ timestamp: Date.now() + 30_000 }));
  await Promise.all([page.waitForSelector('header.top'), page.click('form[aria-label="Sign in with your e-mail"] button[type=submit]')]);
  t.match(await page.$eval('.who', (e) => e.textContent), /Ada · owner/, 'signed in');
});
