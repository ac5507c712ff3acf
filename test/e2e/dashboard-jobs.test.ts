import type { Page } from 'puppeteer-core';
import t from 'tap';
import { answerDialog, launchChromium, requireChromium, seriousViolations, signedInPage } from '../helpers/browser.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { createKey, createProject, createService } from '../helpers/http-resources.js';

import { startTestServer } from '../helpers/test-server.js';

t.setTimeout(400_000);

interface Write {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** Every write the page sends, as the browser sent it. */
function recordWrites(page: Page): Write[] {
  const writes: Write[] = [];
  page.on('request', (r) => {
    if (r.method() === 'GET' || r.method() === 'HEAD') return;
    const data = r.postData();
    writes.push({ method: r.method(), path: new URL(r.url()).pathname, body: data ? (JSON.parse(data) as Record<string, unknown>) : null });
  });
  return writes;
}

const SHOTS = process.env.SLIPWAY_SCREENSHOTS ?? null;
const WIDTHS = [1440, 390] as const;
const THEMES = ['light', 'dark'] as const;

t.test('the Jobs tab: jobs, run now, one-off commands, runs and their logs, live and by role', { skip: requireChromium() || (await requireDocker()) }, async (t) => {
  const { env } = await deployEnv({ SLIPWAY_PROXY: 'off' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Cron');
  t.teardown(() => removeProjectLeftovers(project.id));
  const web = await createService(s, project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8000, env: [] });
  t.equal(outcome((await deploy(s, web.id)).done), 'succeeded', 'the service has a release to run in');
  const reader = await createKey(s, 'read', [project.id]);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await signedInPage(browser, s.url, s.key);
  const writes = recordWrites(page);
  const sentTo = (method: string, path: string) => writes.filter((w) => w.method === method && w.path === path);
  const until = (condition: string, timeout = 60_000) => page.waitForFunction(condition, { timeout });
  const click = async (xpath: string) => (await page.waitForSelector(`xpath/${xpath}`))!.click();
  const runLogText = (scope: string) => `(document.querySelector('${scope} .run-log')?.textContent ?? '')`;
  await page.setViewport({ width: 1440, height: 900 });
  await page.goto(`${s.url}/services/${web.id}?tab=jobs`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.jobs-tab');
  await page.evaluate('window.stillTheSamePage = true');

  await t.test('a job made with the form: only the filled fields are sent; listed with its schedule in words and its next run', async (t) => {
    await click('.//button[normalize-space(.)="New job"]');
    await page.type('#new-job-name', 'report');
    await page.type('#new-job-schedule', '*/5 * * * *');
    await until("document.querySelector('.schedule-words')?.textContent === 'Runs every 5 minutes.'");
    await page.type('#new-job-command', 'echo report-line; exit 3');
    await click('.//button[normalize-space(.)="Create job"]');
    await page.waitForSelector('tr[data-job="report"]');
    t.same(sentTo('POST', `/api/services/${web.id}/jobs`).map((w) => w.body), [{ name: 'report', schedule: '*/5 * * * *', command: 'echo report-line; exit 3' }], 'name, schedule and command only');
    t.match(await page.$eval('tr[data-job="report"] .job-schedule', (e) => e.textContent), /every 5 minutes, UTC/);
    const next = await page.$eval('tr[data-job="report"] .job-next time', (e) => [e.getAttribute('datetime'), e.textContent]);
    const due = Date.parse(next[0]!);
    t.ok(due > Date.now() - 5_000 && due <= Date.now() + 5 * 60_000 + 5_000, `the next run's exact time is in datetime (${next[0]})`);
    t.match(next[1], /^(in |within a minute)/, `and reads as a time to come (${next[1]})`);
    t.equal(await page.$('.job-form'), null, 'the form closes');
  });

  await t.test("run now: its log is followed to its end, with the exit code; the job's last run says so", async (t) => {
    await click('.//tr[@data-job="report"]//button[normalize-space(.)="Run now report"]');
    await until(`${runLogText('.jobs-tab > section:last-child')}.includes('report-line')`);
    await until(`${runLogText('.jobs-tab > section:last-child')}.includes('exit code 3')`);
    t.pass('its output, then exit code 3');
    t.equal(await page.$eval('.jobs-tab > section:last-child .run-log .badge', (e) => e.textContent), 'failed');
    t.equal(await page.$eval('.jobs-tab > section:last-child .stream-state', (e) => e.textContent), 'Ended');
    await until("document.querySelector('tr[data-job=\"report\"] .job-last')?.textContent.includes('exit 3')");
    t.match(await page.$eval('table.runs tbody tr', (e) => e.textContent), /report.*run now/, 'the run heads the runs, as run now');
  });

  await t.test("a one-off command's output appears while it runs, then its exit code", async (t) => {
    await page.type('#run-command', 'for i in 1 2 3; do echo tick-$i; sleep 1; done');
    await click('.//button[normalize-space(.)="Run"]');
    await until(`${runLogText('.run-command')}.includes('tick-1')`);
    t.notMatch(await page.evaluate(runLogText('.run-command')), /exit code/, 'the first line shows before the run ends');
    await until(`${runLogText('.run-command')}.includes('tick-3') && ${runLogText('.run-command')}.includes('exit code 0')`);
    t.pass('all of it, then exit code 0');
    t.same(sentTo('POST', `/api/services/${web.id}/runs`).map((w) => w.body), [{ command: 'for i in 1 2 3; do echo tick-$i; sleep 1; done' }]);
  });

  await t.test('a long run is canceled', async (t) => {
    await (await page.$('#run-command'))!.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await page.type('#run-command', 'echo long-started; sleep 300');
    await click('.//button[normalize-space(.)="Run"]');
    await until(`${runLogText('.run-command')}.includes('long-started')`);
    await click('.//section[contains(@class, "run-command")]//button[normalize-space(.)="Cancel run"]');
    await until("document.querySelector('.run-command .run-log .badge')?.textContent === 'canceled'", 90_000);
    // The job's own due times may have added runs meanwhile: the long run is found by its command.
    const longRow = "[...document.querySelectorAll('table.runs tbody tr')].find((r) => r.textContent.includes('long-started'))";
    await until(`${longRow}?.dataset.status === 'canceled'`);
    const longId = await page.evaluate(`${longRow}.dataset.run`);
    t.equal(sentTo('POST', `/api/job-runs/${longId}/cancel`).length, 1, 'one cancel of that run');
    t.pass('the runs list says canceled too');
  });

  await t.test('an edit sends only the changed field', async (t) => {
    await click('.//tr[@data-job="report"]//button[normalize-space(.)="Edit report"]');
    const field = (await page.waitForSelector('#edit-job-schedule'))!;
    await field.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await page.type('#edit-job-schedule', '0 9 * * *');
    await click('.//button[normalize-space(.)="Save job"]');
    await until("document.querySelector('tr[data-job=\"report\"] .job-schedule')?.textContent.includes('every day at 09:00')");
    const patches = writes.filter((w) => w.method === 'PATCH' && w.path.startsWith('/api/jobs/'));
    t.same(patches.map((w) => w.body), [{ schedule: '0 9 * * *' }], 'the schedule alone');
  });

  await t.test('screens: no horizontal overflow and no serious accessibility violation, at 1440 and 390 px, light and dark', async (t) => {
    // A job that is disabled, and a run's log open, are on the screen too.
    await s.call('POST', `/api/services/${web.id}/jobs`, { body: { name: 'cleanup-sessions-older-than-thirty-days', schedule: '30 3 * * 1-5', timezone: 'Europe/Berlin', command: ['node', 'scripts/cleanup.js', '--days', '30'], enabled: false } });
    await until("document.querySelectorAll('table.jobs tbody tr').length === 2");
    await click('(.//table[contains(@class, "runs")]//button[normalize-space(.)="Log"])[last()]');
    await until(`${runLogText('.jobs-tab > section:last-child')}.includes('exit code')`);
    const states: [string, () => Promise<unknown>][] = [
      ['the tab with jobs, runs and a log', async () => undefined],
      ['the new job form with a refusal at its field', async () => {
        await click('.//button[normalize-space(.)="New job"]');
        await page.type('#new-job-name', 'broken');
        await page.type('#new-job-schedule', '61 * * * *');
        await page.type('#new-job-command', 'true');
        await click('.//button[normalize-space(.)="Create job"]');
        await page.waitForSelector('#new-job-schedule-error');
      }],
    ];
    for (const [name, reach] of states) {
      await reach();
      t.equal(await page.$eval('#new-job-schedule', (e) => e.getAttribute('aria-invalid')).catch(() => null), name.includes('refusal') ? 'true' : null, `${name}: as meant`);
      for (const width of WIDTHS)
        for (const theme of THEMES) {
          await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
          await page.setViewport({ width, height: width > 600 ? 900 : 844 });
          // On a phone the sidebar slides away behind its menu (0.2 s): axe must not read colours under it meanwhile.
          await until("innerWidth > 600 || getComputedStyle(document.querySelector('.sidebar')).visibility === 'hidden'");
          // Nor under the pointer (a hovered button), nor while colours pass from one scheme to the other.
          await page.mouse.move(0, 0);
          await until("document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)");
          t.equal(await page.evaluate('document.documentElement.scrollWidth - innerWidth'), 0, `${name} at ${width} px, ${theme}: nothing wider than the window`);
          t.same(await seriousViolations(page), [], `${name} at ${width} px, ${theme}: no serious violation`);
          if (SHOTS) await page.screenshot({ path: `${SHOTS}/jobs-${name.includes('refusal') ? 'form' : 'tab'}-${width}-${theme}.png`, fullPage: true });
        }
    }
    await page.setViewport({ width: 1440, height: 900 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await click('.//form[contains(@class, "job-form")]//button[normalize-space(.)="Cancel"]');
  });

  await t.test('delete asks first', async (t) => {
    const before = writes.filter((w) => w.method === 'DELETE').length;
    await click('.//tr[@data-job="report"]//button[normalize-space(.)="Delete report"]');
    const title = await page.$eval('dialog.confirm[open] h2', (e) => e.textContent);
    t.equal(title, 'Delete job report?', 'a dialog names the job');
    t.equal(writes.filter((w) => w.method === 'DELETE').length, before, 'nothing sent before the answer');
    await answerDialog(page);
    await until("!document.querySelector('tr[data-job=\"report\"]')");
    t.equal(writes.filter((w) => w.method === 'DELETE' && w.path.startsWith('/api/jobs/')).length, before + 1, 'deleted once confirmed');
    t.equal(await page.evaluate('window.stillTheSamePage'), true, 'all on one page, never reloaded');
  });

  await t.test('a run started elsewhere appears and ends on the open tab, without a reload', async (t) => {
    const started = await s.call('POST', `/api/services/${web.id}/runs`, { body: { command: 'sleep 2; echo elsewhere' } });
    const id = started.body.run.id as string;
    await page.waitForSelector(`tr[data-run="${id}"]`, { timeout: 60_000 });
    t.pass('it appears');
    await until(`document.querySelector('tr[data-run="${id}"]')?.dataset.status === 'succeeded'`);
    t.pass('and its end shows');
    t.equal(await page.evaluate('window.stillTheSamePage'), true, 'the page was not reloaded');
  });

  await t.test('the release command in the service settings: only what changed is sent', async (t) => {
    await page.goto(`${s.url}/services/${web.id}?tab=settings`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#set-release-command');
    await page.type('#set-release-command', 'echo migrate');
    await click('.//button[normalize-space(.)="Save settings"]');
    await until("document.querySelector('form.settings [role=status]')?.textContent.startsWith('Saved')");
    t.same(writes.filter((w) => w.method === 'PATCH' && w.path === `/api/services/${web.id}`).map((w) => w.body), [{ releaseCommand: 'echo migrate' }], 'the release command alone');
    t.equal((await s.call('GET', `/api/services/${web.id}`)).body.service.releaseCommand, 'echo migrate', 'the service has it');
    await click('.//label[contains(., "release command on rollbacks")]/input');
    const saved = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith(`/api/services/${web.id}`));
    await click('.//button[normalize-space(.)="Save settings"]');
    t.same(JSON.parse((await saved).postData() ?? 'null'), { releaseCommandOnRollback: true }, 'then the rollback box alone');
  });

  await t.test('a read key sees the jobs and runs without a control that writes', async (t) => {
    const viewer = await signedInPage(browser, s.url, reader.secret);
    await viewer.setViewport({ width: 1440, height: 900 });
    await viewer.goto(`${s.url}/services/${web.id}?tab=jobs`, { waitUntil: 'domcontentloaded' });
    await viewer.waitForSelector('table.jobs tbody tr');
    await viewer.waitForSelector('table.runs tbody tr');
    const controls = await viewer.$$eval('.jobs-tab button', (bs) => bs.map((b) => (b.textContent ?? '').trim()));
    t.notOk(
      controls.some((c) => /^(New job|Run now|Edit|Disable|Enable|Delete|Run|Cancel)\b/.test(c)),
      `only reading controls (${[...new Set(controls)].join(', ')})`,
    );
    t.equal(await viewer.$('#run-command'), null, 'no command to run');
    t.same(await seriousViolations(viewer), [], 'the read-only tab: no serious violation');

    // A run's events carry its project into the audit log, so the change feed tells a project-scoped key of them.
    await t.test('a run started elsewhere shows to a project-scoped key', async (t) => {
      const started = await s.call('POST', `/api/services/${web.id}/runs`, { body: { command: 'echo seen-by-reader' } });
      await viewer.waitForSelector(`tr[data-run="${started.body.run.id as string}"]`, { timeout: 15_000 });
      t.pass('it appears');
    });
  });
});
