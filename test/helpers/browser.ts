import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { required } from './requirements.js';

/** Debian's Chromium: puppeteer's own browser download cannot reach the internet here. */
export const CHROMIUM = process.env.SLIPWAY_CHROMIUM ?? '/usr/bin/chromium';

/** tap's `skip` for browser tests; fatal under `npm test`, which installs Chromium. */
export const requireChromium = () => required(existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (npm test installs Debian's chromium)`);

/** How long `close()` may take before Chromium is killed: a browser that does not exit must not hold a test file. */
const CLOSE_GRACE_MS = 10_000;

/** The processes whose command line names `marker`: Chromium's crash handlers, found by the dump folder it gave them. */
function processesNaming(marker: string): number[] {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  }).map(Number);
}

export async function launchChromium(): Promise<Browser> {
  // Chromium's crash handlers start in sessions of their own, outlive it and hold its stdio: on a loaded machine
  // they kept test files alive after their last test. A configuration folder of this browser's own (their
  // database is in it) names them, so its close ends them too.
  const configHome = mkdtempSync(join(tmpdir(), 'slipway-chromium-config-'));
  // As root in a container Chromium needs --no-sandbox; nothing it opens here is outside this test.
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    env: { ...process.env, XDG_CONFIG_HOME: configHome },
  });
  // Nor may its pipes hold this process: the handlers inherit them, and a kill may not reach one in time.
  const launched = browser.process();
  for (const pipe of [launched?.stdin, launched?.stdout, launched?.stderr]) (pipe as { unref?: () => void } | null | undefined)?.unref?.();
  const close = browser.close.bind(browser);
  browser.close = async () => {
    const kill = setTimeout(() => browser.process()?.kill('SIGKILL'), CLOSE_GRACE_MS);
    const child = browser.process();
    try {
      await close();
    } finally {
      clearTimeout(kill);
      // Its helpers (zygote, renderers) share its group; the crash handlers are found by their folder.
      for (const pid of [...(child?.pid ? [-child.pid] : []), ...processesNaming(configHome)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      for (const pipe of [child?.stdin, child?.stdout, child?.stderr]) pipe?.destroy();
      rmSync(configHome, { recursive: true, force: true });
    }
  };
  return browser;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The page's serious and critical accessibility violations, by axe-core. Evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern (an injected script tag would be refused).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Opens `url` until its stylesheet has loaded and its script has drawn: Chromium aborts the requests under way when
 * the machine's network changes (another test starting a container), which left a page unstyled or blank.
 */
export async function openWhole(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.goto(url, { waitUntil: 'networkidle0' });
    const whole = await page.evaluate(
      "[...document.querySelectorAll('link[rel=stylesheet]')].every((l) => l.sheet !== null) && document.querySelector('#app')?.childElementCount > 0",
    );
    if (whole || attempt === 3) return;
  }
}

/**
 * Signs in on the sign-in screen with an API key (the form under "Use an API key"); the caller waits for what
 * follows, a signed-in screen or a refusal.
 */
export async function signInWithKey(page: Page, key: string): Promise<void> {
  const details = (await page.waitForSelector('details.sign-in-key'))!;
  await details.evaluate((d) => ((d as unknown as { open: boolean }).open = true));
  await page.type('#api-key', key);
  await page.click('form[aria-label="Sign in with an API key"] button[type=submit]');
}

/**
 * A fresh browser profile signed in to the dashboard at `url` with `key`. The dashboard asks its questions in a
 * `<dialog>` of its own (answer them with `answerDialog`); a native one is dismissed, so that nothing is done
 * without a test saying yes.
 */
export async function signedInPage(browser: Browser, url: string, key: string): Promise<Page> {
  const page = await (await browser.createBrowserContext()).newPage();
  page.on('dialog', (d) => void d.dismiss());
  await openWhole(page, url + '/');
  await Promise.all([page.waitForSelector('header.top'), signInWithKey(page, key)]);
  return page;
}

/**
 * Says yes to the dashboard's confirmation dialog (components/ui/dialog.tsx), typing `name` first when it asks
 * for one; answers the question it asked.
 */
export async function answerDialog(page: Page, name?: string): Promise<string> {
  const dialog = (await page.waitForSelector('dialog.confirm[open]'))!;
  const title = await dialog.$eval('h2', (e) => e.textContent ?? '');
  if (name !== undefined) await (await dialog.$('input'))!.type(name);
  await dialog.$eval('button[type=submit]', (b) => (b as unknown as { click(): void }).click());
  await page.waitForSelector('dialog.confirm', { hidden: true });
  return title;
}
