import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('Ctrl-K jumps to a service and runs its deploy, by keyboard', { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const project = await createProject(s, 'Palette');
  const web = await createService(s, project.id, testWebService('web'));
  await createService(s, project.id, testWebService('worker'));
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  const press = async (key: 'k') => {
    await page.keyboard.down('Control');
    await page.keyboard.press(key);
    await page.keyboard.up('Control');
  };
  const open = async () => {
    await press('k');
    await page.waitForSelector('dialog.palette[open] input[role=combobox]');
    await page.waitForFunction('document.activeElement?.getAttribute("role") === "combobox"');
  };

  await open();
  t.same(await seriousViolations(page), [], 'the open palette is accessible');
  await page.keyboard.type('worker');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog.palette[open]', { hidden: true });
  t.pass('Escape closes it');

  await open();
  await page.keyboard.type('web');
  // The first match is the service's page; Down moves to the next one (its deploy) and Up back.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  t.equal(await page.$eval('[role=option][aria-selected=true]', (o) => o.textContent), 'GowebPalette', 'the page of web is chosen');
  await page.keyboard.press('Enter');
  await page.waitForFunction(`location.pathname === '/services/${web.id}'`);
  t.pass('Enter goes to the service');

  await open();
  await page.keyboard.type('deploy web');
  await page.keyboard.press('Enter');
  await page.waitForFunction(`location.pathname === '/services/${web.id}' && new URLSearchParams(location.search).has('deployment')`);
  const deploymentId = await page.evaluate("new URLSearchParams(location.search).get('deployment')");
  const deployment = (await s.call('GET', `/api/deployments/${deploymentId}`)).body.deployment;
  t.match(deployment, { serviceId: web.id, kind: 'deploy' }, 'the deployment was queued, and the page follows it');
});
