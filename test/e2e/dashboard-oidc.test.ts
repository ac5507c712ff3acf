import t from 'tap';
import { launchChromium, requireChromium, seriousViolations } from '../helpers/browser.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { destinationOf } from '../helpers/outbound.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('a real OpenID provider signs a person in through the dashboard', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const provider = await startOidcProvider([`${s.url}/api/auth/oidc/callback`]);
  t.teardown(() => provider.close());
  provider.accounts.set('grace', { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper', groups: ['engineering'] });
  provider.accounts.set('eve', { email: 'eve@elsewhere.test', email_verified: true });
  await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [destinationOf(provider.issuer)] } });
  const configured = await s.call('PUT', '/api/settings/oidc', {
    body: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, name: 'Acme ID', allowedDomains: ['example.com'], groupsClaim: 'groups', groupRoles: { engineering: 'admin' } },
  });
  t.equal(configured.status, 200);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await (await browser.createBrowserContext()).newPage();
  await page.goto(`${s.url}/installation`, { waitUntil: 'domcontentloaded' });
  const button = await page.waitForSelector('xpath/.//a[normalize-space(.)="Sign in with Acme ID"]');
  t.ok(await page.$('#sign-in-email'), 'the e-mail form stays, under the button');
  for (const theme of ['light', 'dark']) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
    t.same(await seriousViolations(page), [], `the sign-in page with the button: no serious accessibility violation (${theme})`);
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

  // A refused one first: the page says why, in its own words.
  await Promise.all([page.waitForNavigation(), button!.click()]);
  await page.waitForSelector('input[name=login]');
  await page.type('input[name=login]', 'eve');
  await page.type('input[name=password]', 'anything');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  const refusal = await page.waitForSelector('[role=alert]');
  t.match(await refusal!.evaluate((e) => e.textContent), /domain may not sign in/, 'another domain is said');
  t.equal(new URL(page.url()).search, '', 'the reason is taken off the address');

  const again = await page.waitForSelector('xpath/.//a[normalize-space(.)="Sign in with Acme ID"]');
  // The provider remembers Eve: a new browser context is a new person at the provider.
  const fresh = await (await browser.createBrowserContext()).newPage();
  await fresh.goto(`${s.url}/installation`, { waitUntil: 'domcontentloaded' });
  const freshButton = await fresh.waitForSelector('xpath/.//a[normalize-space(.)="Sign in with Acme ID"]');
  t.ok(again, 'the button is there after a refusal');
  await Promise.all([fresh.waitForNavigation(), freshButton!.click()]);
  await fresh.waitForSelector('input[name=login]');
  await fresh.type('input[name=login]', 'grace');
  await fresh.type('input[name=password]', 'anything');
  await Promise.all([fresh.waitForNavigation(), fresh.click('button[type=submit]')]);
  await Promise.all([fresh.waitForNavigation(), fresh.click('button[type=submit]')]);
  await fresh.waitForSelector('header.top');
  t.equal(new URL(fresh.url()).pathname, '/installation', 'back where she began');
  t.match(await fresh.$eval('.who', (e) => e.textContent), /Grace Hopper · admin/, 'the top bar names her, with her group’s role');
  const kept = await fresh.evaluate('document.cookie + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
  t.notMatch(kept, /slipway_(session|oidc)/, 'the cookies are HttpOnly');
});
