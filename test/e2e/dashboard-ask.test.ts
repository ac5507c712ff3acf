import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { launchChromium, requireChromium, signedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';

t.test("renaming a project asks in the page's own dialog, by keyboard", { skip: requireChromium() }, async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const project = await createProject(s, 'Old name');
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  const nameOf = async () => (await s.call('GET', `/api/projects/${project.id}`)).body.project.name as string;
  const ask = async () => {
    await page.goto(s.url + '/', { waitUntil: 'domcontentloaded' });
    await (await page.waitForSelector('xpath/.//button[starts-with(normalize-space(.), "Rename")]'))!.click();
    await page.waitForSelector('dialog.confirm[open] input');
    t.equal(await page.evaluate("document.activeElement?.value"), 'Old name', 'the field holds the name, ready to be typed over');
  };

  await ask();
  await page.keyboard.type('Ignored');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog.confirm', { hidden: true });
  t.equal(await nameOf(), 'Old name', 'Escape renames nothing');

  await ask();
  await page.keyboard.type('New name');
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog.confirm', { hidden: true });
  await page.waitForFunction("document.querySelector('main')?.textContent.includes('New name')");
  t.equal(await nameOf(), 'New name', 'Enter renames it');
});
