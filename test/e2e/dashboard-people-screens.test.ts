import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, signInWithKey } from '../helpers/browser.js';
import { checkScreen, count, newPage, PASSWORD, recordWrites, rowOf, rowSays, sent, signInWithPassword, texts } from '../helpers/people-screens.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('an owner invites a person, who joins, is given a role and a project, and keeps their own account', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const shop = await createProject(s, 'Shop');
  await s.call('POST', '/api/users/owner', { body: { email: 'ada@example.com', name: 'Ada Lovelace', password: PASSWORD } });
  const browser = await launchChromium();
  t.teardown(() => browser.close());

  // The owner, signed in with her e-mail.
  const ownerContext = await browser.createBrowserContext();
  await ownerContext.overridePermissions(s.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  const owner = await newPage(ownerContext, s, '/');
  const ownerWrites = recordWrites(owner);
  await signInWithPassword(owner, 'ada@example.com');
  await owner.goto(s.url + '/installation?tab=people', { waitUntil: 'domcontentloaded' });
  await owner.waitForSelector(rowOf('Ada Lovelace'));
  t.match(await owner.$eval(rowOf('Ada Lovelace'), (r) => r.textContent), /ada@example\.com.*owner.*off/, 'her row: e-mail, role, two factors off');
  t.equal(await owner.$(`${rowOf('Ada Lovelace')}//select`), null, 'no control to demote or remove herself');

  // Invite Grace as an admin; the link is shown once, with Copy.
  await owner.type('#invite-email', 'Grace@Example.com');
  await owner.select('#invite-role', 'admin');
  t.equal(await owner.$('fieldset.grants'), null, 'an admin is given no projects: the choice is gone');
  await owner.click('form[aria-label="Invite a person"] button[type=submit]');
  const link = await (await owner.waitForSelector('#invitation-link'))!.evaluate((e) => e.textContent ?? '');
  t.match(link, /\/invitations\/[\w-]{20,}$/, 'the link is shown');
  t.same((await sent(ownerWrites, 'POST', '/api/invitations', 0)).body, { email: 'Grace@Example.com', role: 'admin', projects: [] }, 'the invitation sends the e-mail, the role, no projects');
  await (await owner.waitForSelector('xpath/.//p[@class="link-row"]/button[starts-with(normalize-space(.), "Copy")]'))!.click();
  t.equal(await (await owner.waitForSelector('.toast p'))!.evaluate((e) => e.textContent), 'Link copied.', 'Copy says so');
  t.equal(await owner.evaluate('navigator.clipboard.readText()'), link, 'Copy puts the link on the clipboard');
  await owner.waitForSelector(rowOf('grace@example.com'));
  t.match(await owner.$eval(rowOf('grace@example.com'), (r) => r.textContent), /admin.*in 7 days/, 'the pending invitation: role, when it expires');
  await checkScreen(t, owner, 'people-invited');

  // Grace accepts in a browser of her own: the owner's list shows her without a reload.
  const grace = await newPage(await browser.createBrowserContext(), s, new URL(link).pathname);
  const graceWrites = recordWrites(grace);
  await grace.waitForSelector('#invite-name');
  await grace.type('#invite-name', 'Grace Hopper');
  await grace.type('#invite-password', PASSWORD);
  await grace.type('#invite-password-again', PASSWORD);
  await Promise.all([grace.waitForSelector('header.top'), grace.click('form[aria-label="Accept the invitation"] button[type=submit]')]);
  await owner.waitForSelector(rowOf('Grace Hopper'));
  t.pass('Grace appears in the owner’s People list live');
  await owner.waitForFunction('document.querySelector("#invitations")?.parentElement.textContent.includes("None")');
  t.pass('and her invitation leaves the pending ones');
  await grace.goto(s.url + '/installation', { waitUntil: 'domcontentloaded' });
  await grace.waitForSelector('[role=tab]');
  t.ok((await texts(grace, '[role=tab]')).includes('People'), 'as an admin she sees the People tab');

  // The owner makes her a member: the role is sent alone, and only once Save is pressed.
  const graceId = await owner.$eval(`${rowOf('Grace Hopper')}//select`, (e) => e.id.replace('role-', ''));
  await owner.select(`#role-${graceId}`, 'member');
  t.equal(count(ownerWrites, 'PATCH', `/api/users/${graceId}`), 0, 'choosing a role sends nothing yet');
  await (await owner.waitForSelector(`xpath/.//tr[.//select[@id="role-${graceId}"]]//button[starts-with(normalize-space(.), "Save")]`))!.click();
  t.same((await sent(ownerWrites, 'PATCH', `/api/users/${graceId}`, 0)).body, { role: 'member' }, 'the change sends the role alone');
  await rowSays(owner, 'Grace Hopper', 'no project yet');
  t.pass('her row says she is a member of no project yet');

  // On the project page the owner adds her as a deployer.
  await owner.goto(s.url + `/projects/${shop.id}`, { waitUntil: 'domcontentloaded' });
  await owner.waitForSelector(`#member-person option[value="${graceId}"]`);
  await owner.select('#member-person', graceId);
  await owner.select('#member-role', 'deployer');
  await owner.click('form[aria-label="Add a member to Shop"] button[type=submit]');
  t.same((await sent(ownerWrites, 'PUT', `/api/projects/${shop.id}/members/${graceId}`, 0)).body, { role: 'deployer' }, 'adding sends the project role');
  await owner.waitForSelector('xpath/.//section[@aria-labelledby="project-members"]//tr[td[1][normalize-space(.)="Grace Hopper"]]');
  t.equal(await owner.$eval(`#member-${graceId}`, (e) => (e as unknown as { value: string }).value), 'deployer', 'she is listed as a deployer, her role changeable');
  await owner.waitForFunction('document.querySelector(".project-activity")?.textContent.includes("Ada Lovelace gave a member the deployer role in Shop")');
  t.pass('the project’s activity says it in words');
  await checkScreen(t, owner, 'people-members', undefined, '#project-members');

  // Grace, now a member and a deployer of Shop: no People tab, the members without their controls.
  await grace.goto(s.url + '/installation', { waitUntil: 'domcontentloaded' });
  await grace.waitForSelector('[role=tab]');
  t.same(await texts(grace, '[role=tab]'), ['Health', 'Notifications'], 'as a member she sees no People tab');
  await grace.goto(s.url + `/projects/${shop.id}`, { waitUntil: 'domcontentloaded' });
  await grace.waitForSelector('.project-members table');
  t.same(await grace.$$('.project-members select, .project-members button'), [], 'the members are listed to her with no control');

  // Made the project's admin, she changes its members but adds none: the list of people is the owners' and admins'.
  await owner.select(`#member-${graceId}`, 'admin');
  await (await owner.waitForSelector(`xpath/.//tr[.//select[@id="member-${graceId}"]]//button[starts-with(normalize-space(.), "Save")]`))!.click();
  t.same((await sent(ownerWrites, 'PUT', `/api/projects/${shop.id}/members/${graceId}`, 1)).body, { role: 'admin' }, 'a member’s new role is sent alone');
  await grace.waitForSelector(`#member-${graceId}`);
  t.ok(await grace.$('xpath/.//section[@aria-labelledby="project-members"]//button[starts-with(normalize-space(.), "Take out")]'), 'as the project’s admin she gets the members’ controls, live');
  t.equal(await grace.$('#member-person'), null, 'but no form to add a person');

  // My account: her name, sent alone and only when changed; the top bar follows.
  await (await grace.waitForSelector('header a.who'))!.click();
  await grace.waitForSelector('#account-name');
  t.equal(new URL(grace.url()).pathname, '/account', 'the name in the top bar opens My account');
  await grace.click('form[aria-label="Your name"] button[type=submit]');
  await grace.waitForFunction('document.querySelector(".toasts")?.textContent.includes("Nothing changed")');
  t.equal(count(graceWrites, 'PATCH', '/api/users/me'), 0, 'an unchanged name sends nothing');
  await grace.type('#account-name', ' B.');
  await grace.click('form[aria-label="Your name"] button[type=submit]');
  t.same((await sent(graceWrites, 'PATCH', '/api/users/me', 0)).body, { name: 'Grace Hopper B.' }, 'a changed name is sent alone');
  await grace.waitForFunction('document.querySelector("header .who")?.textContent.startsWith("Grace Hopper B.")');
  await grace.type('#account-password-current', 'not my password at all');
  await grace.type('#account-password-new', `${PASSWORD}, new`);
  await grace.click('form[aria-label="Change your password"] button[type=submit]');
  t.match(await (await grace.waitForSelector('#account-password-current-error'))!.evaluate((e) => e.textContent), /not your current password/, 'a wrong current password is refused at its field');
  await grace.waitForFunction("document.activeElement.id === 'account-password-current'");
  t.pass('which gets the focus');

  // Two factors: the QR code (no style in it), the secret, a code, ten recovery codes.
  await (await grace.waitForSelector('xpath/.//button[normalize-space(.)="Turn on two factors"]'))!.click();
  const qr = await (await grace.waitForSelector('img.qr-code'))!.evaluate((e) => e.getAttribute('src') ?? '');
  const svg = decodeURIComponent(qr.replace('data:image/svg+xml,', ''));
  t.match(svg, /^<svg[^>]*viewBox/, 'the QR code is an SVG image');
  t.notMatch(svg, /style|<script/i, 'with no style or script in it (the CSP would refuse them)');
  await checkScreen(t, grace, 'account', 'phone-account', '#two-factor');
  const secret = await grace.$eval('.totp-secret', (e) => e.textContent ?? '');
  const app = new TOTP({ secret: Secret.fromBase32(secret) });
  await grace.type('#totp-code', '000000');
  await grace.click('form[aria-label="Confirm two factors"] button[type=submit]');
  await grace.waitForSelector('#totp-code-error');
  t.equal(await grace.$eval('#totp-code', (e) => e.getAttribute('aria-invalid')), 'true', 'a wrong code is refused at its field');
  await grace.$eval('#totp-code', (e) => ((e as unknown as { value: string }).value = ''));
  await grace.type('#totp-code', app.generate());
  await grace.click('form[aria-label="Confirm two factors"] button[type=submit]');
  await grace.waitForSelector('.recovery-codes');
  const recovery = await texts(grace, '.recovery-codes code');
  t.equal(recovery.length, 10, 'ten recovery codes are shown');
  t.ok(await grace.$('xpath/.//button[normalize-space(.)="Download as a text file"]'), 'with Download');
  await checkScreen(t, grace, 'account-recovery', undefined, '#two-factor');
  await (await grace.waitForSelector('xpath/.//button[normalize-space(.)="I have kept them"]'))!.click();
  await grace.waitForSelector('#totp-off-password');

  // Signed out and in again: the code is asked after the password.
  await (await grace.waitForSelector('xpath/.//header//button[normalize-space(.)="Sign out"]'))!.click();
  await signInWithPassword(grace, 'grace@example.com', app.generate({ timestamp: Date.now() + 30_000 }));
  t.match(await grace.$eval('header .who', (e) => e.textContent), /Grace Hopper B\. · member/, 'signed in again with her code');

  // A personal key, shown once, that works against the API.
  await grace.goto(s.url + '/account', { waitUntil: 'domcontentloaded' });
  await grace.waitForSelector('#my-key-name');
  await grace.type('#my-key-name', 'laptop');
  await grace.click('form[aria-label="New personal key"] button[type=submit]');
  const key = await (await grace.waitForSelector('#personal-key-secret'))!.evaluate((e) => e.textContent ?? '');
  t.same((await sent(graceWrites, 'POST', '/api/users/me/keys', 0)).body, { name: 'laptop', access: 'read' }, 'no project chosen is not sent');
  const projects = await s.call('GET', '/api/projects', { key });
  t.same(
    projects.body.projects.map((p: { name: string }) => p.name),
    ['Shop'],
    'the key reads her one project',
  );
  t.equal((await s.call('POST', '/api/projects', { key, body: { name: 'Nope' } })).status, 403, 'and cannot write: it is a read key');

  // Her other browser, signed in with a recovery code, is ended from here and signed out at its next request.
  const other = await newPage(await browser.createBrowserContext(), s, '/');
  await signInWithPassword(other, 'grace@example.com', recovery[0]!);
  await grace.reload({ waitUntil: 'domcontentloaded' });
  await grace.waitForFunction('document.querySelectorAll("section[aria-labelledby=sessions] tbody tr").length === 2');
  t.equal((await texts(grace, 'section[aria-labelledby=sessions] .badge')).join(), 'this device', 'this device is marked');
  await (await grace.waitForSelector('xpath/.//section[@aria-labelledby="sessions"]//tbody//button[starts-with(normalize-space(.), "End ")]'))!.click();
  await grace.waitForFunction('document.querySelectorAll("section[aria-labelledby=sessions] tbody tr").length === 1');
  await other.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
  await other.waitForSelector('#sign-in-email');
  t.pass('the ended session’s browser is back at the sign-in page at its next request');

  // The owner removes her, by keyboard: Escape cancels, Cancel has the focus first, Tab and Enter confirm.
  await owner.goto(s.url + '/installation?tab=people', { waitUntil: 'domcontentloaded' });
  await rowSays(owner, 'Grace Hopper B.', 'Shop (admin)');
  await checkScreen(t, owner, 'people', 'phone-people');
  const remove = `xpath/.//tr[td[1][starts-with(normalize-space(.), "Grace Hopper B.")]]//button[starts-with(normalize-space(.), "Remove")]`;
  await (await owner.waitForSelector(remove))!.focus();
  await owner.keyboard.press('Enter');
  await owner.waitForSelector('dialog.confirm[open]');
  t.equal(await owner.$eval('dialog.confirm h2', (e) => e.textContent), 'Remove Grace Hopper B.?', 'the dialog names her');
  t.equal(await owner.evaluate('document.activeElement.textContent'), 'Cancel', 'Cancel has the focus');
  await owner.keyboard.press('Escape');
  await owner.waitForSelector('dialog.confirm', { hidden: true });
  t.match(await owner.evaluate('document.activeElement.textContent'), /^Remove/, 'Escape closes it, the focus back on Remove');
  t.equal(count(ownerWrites, 'DELETE', `/api/users/${graceId}`), 0, 'nothing was removed');
  await owner.keyboard.press('Enter');
  await owner.waitForSelector('dialog.confirm[open]');
  await owner.keyboard.press('Tab');
  await owner.keyboard.press('Enter');
  await sent(ownerWrites, 'DELETE', `/api/users/${graceId}`, 0);
  await owner.waitForFunction(`!document.querySelector('table.people')?.textContent.includes('Grace')`);
  t.pass('she leaves the list');
  await grace.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
  await grace.waitForSelector('#sign-in-email');
  t.pass('and her browser is signed out');
  t.equal((await s.call('GET', '/api/projects', { key })).status, 401, 'her personal key stops working');
});

t.test('an installation without an owner: the bootstrap key is offered to make one, who is then signed in', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await newPage(await browser.createBrowserContext(), s, '/');
  await Promise.all([page.waitForSelector('header.top'), signInWithKey(page, s.key)]);
  const offer = (await page.waitForSelector('.owner-notice button'))!;
  t.match(await page.$eval('.owner-notice', (e) => e.textContent), /Nobody owns this installation yet/, 'the first screen says nobody owns it');
  await checkScreen(t, page, 'people-owner-notice');
  await offer.click();
  await page.waitForSelector('form[aria-label="Make the first owner"]');
  t.equal(await page.evaluate('document.activeElement.id'), 'owner-name', 'the form opens, its name field focused');
  await checkScreen(t, page, 'people-first-owner');
  await (await page.waitForSelector('xpath/.//button[starts-with(normalize-space(.), "Not now")]'))!.click();
  await page.waitForSelector('.owner-notice button');
  t.pass('Not now goes back to the dashboard, the offer still there');
  await page.click('.owner-notice button');
  await page.waitForSelector('#owner-name');
  await page.type('#owner-name', 'Ada Lovelace');
  await page.type('#owner-email', 'ada@example.com');
  await page.type('#owner-password', PASSWORD);
  await Promise.all([page.waitForSelector('header.top'), page.click('form[aria-label="Make the first owner"] button[type=submit]')]);
  await page.waitForFunction('document.querySelector("header .who")?.textContent.includes("Ada Lovelace · owner")');
  t.pass('signed in as the owner, in place of the key');
  t.equal(await page.$('.owner-notice'), null, 'with no offer any more');
  const users = await s.call('GET', '/api/users');
  t.same(
    users.body.users.map((u: { name: string; role: string }) => [u.name, u.role]),
    [['Ada Lovelace', 'owner']],
    'the owner exists',
  );

  // With an owner, the key's next session is offered nothing.
  const again = await newPage(await browser.createBrowserContext(), s, '/');
  await Promise.all([again.waitForSelector('.card h2, .empty-state'), signInWithKey(again, s.key)]);
  t.equal(await again.$('.owner-notice'), null, 'no offer once there is an owner');
});
