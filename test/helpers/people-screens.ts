import { join } from 'node:path';
import type { BrowserContext, Page } from 'puppeteer-core';
import type { Test } from 'tap';
import { openWhole, seriousViolations } from './browser.js';
import type { TestServer } from './test-server.js';

/** The people screens' browser test (test/e2e/dashboard-people-screens.test.ts): what it does again and again. */
export const PASSWORD = 'a long enough password';
/** Set to a folder, the screens are also saved there as PNGs (docs/screenshots: `npm run screenshots` does the rest). */
const SHOTS = process.env.SLIPWAY_PEOPLE_SCREENSHOTS;

interface Write {
  method: string;
  path: string;
  body: unknown;
}

/** Every write the page sends, as the browser sent it. */
export function recordWrites(page: Page): Write[] {
  const writes: Write[] = [];
  page.on('request', (r) => {
    if (r.method() === 'GET' || r.method() === 'HEAD') return;
    const data = r.postData();
    writes.push({ method: r.method(), path: new URL(r.url()).pathname, body: data ? JSON.parse(data) : null });
  });
  return writes;
}
export const sent = async (writes: Write[], method: string, path: string | RegExp, seen: number): Promise<Write> => {
  const match = (w: Write) => w.method === method && (typeof path === 'string' ? w.path === path : path.test(w.path));
  for (let i = 0; i < 200; i++) {
    const found = writes.filter(match)[seen];
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${method} ${path} was sent`);
};
export const count = (writes: Write[], method: string, path: string) => writes.filter((w) => w.method === method && w.path === path).length;

export const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;
export const texts = (page: Page, selector: string) => page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
/** Waits until the row whose first cell starts with `name` says `words`. */
export const rowSays = (page: Page, name: string, words: string) =>
  page.waitForFunction(
    `[...document.querySelectorAll('tr')].some((r) => r.cells[0]?.textContent.trim().startsWith(${JSON.stringify(name)}) && r.textContent.includes(${JSON.stringify(words)}))`,
    { timeout: 10_000 },
  );
export const rowOf = (name: string) => `xpath/.//tr[td[1][starts-with(normalize-space(.), "${name}")]]`;

/**
 * Each new screen at 1,440 and 390 px, light and dark: no serious axe violation, nothing wider than the window;
 * with SLIPWAY_PEOPLE_SCREENSHOTS, its pictures (light and dark at 1,440, and one at 390 when `phone` names it).
 */
export async function checkScreen(t: Test, page: Page, name: string, phone?: string, shown?: string) {
  for (const dark of [false, true]) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }]);
    // Colours change with a transition: axe reads them once it has ended.
    await page.waitForFunction("document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running')");
    for (const width of [1440, 390]) {
      await page.setViewport({ width, height: width > 600 ? 900 : 844 });
      const theme = `${name} at ${width} px, ${dark ? 'dark' : 'light'}`;
      t.same(await seriousViolations(page), [], `${theme}: no serious accessibility violation`);
      t.equal(await overflow(page), 0, `${theme}: nothing wider than the window`);
      if (SHOTS && (width === 1440 || (phone && !dark))) {
        await page.evaluate('document.fonts.ready');
        // A picture of the screen, not of the toasts of the moment; `shown` is scrolled into it.
        await page.$$eval('.toast button', (buttons) => buttons.forEach((b) => (b as unknown as { click(): void }).click()));
        if (shown) await page.evaluate(`scrollTo(0, document.querySelector(${JSON.stringify(shown)}).getBoundingClientRect().top + scrollY - 96)`);
        await page.screenshot({ path: join(SHOTS, `${width === 1440 ? name : phone}${dark ? '-dark' : ''}.png`) });
      }
    }
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  await page.setViewport({ width: 1440, height: 900 });
}

export async function signInWithPassword(page: Page, email: string, code?: string) {
  await page.waitForSelector('#sign-in-email');
  await page.type('#sign-in-email', email);
  await page.type('#sign-in-password', PASSWORD);
  const form = 'form[aria-label="Sign in with your e-mail"] button[type=submit]';
  if (code === undefined) return void (await Promise.all([page.waitForSelector('header.top'), page.click(form)]));
  await page.click(form);
  await page.waitForSelector('#sign-in-code');
  await page.type('#sign-in-code', code);
  await Promise.all([page.waitForSelector('header.top'), page.click(form)]);
}

export async function newPage(context: BrowserContext, s: TestServer, path: string): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (d) => void d.dismiss());
  await page.setViewport({ width: 1440, height: 900 });
  await openWhole(page, s.url + path);
  return page;
}
