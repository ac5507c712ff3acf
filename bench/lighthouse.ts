import { desktopConfig, navigation } from 'lighthouse';
import type { Page } from 'puppeteer-core';
import { line } from './print.js';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const score = (value: number | null | undefined) => (value == null ? 'n/a' : value.toFixed(2));

/**
 * Lighthouse 12 (desktop preset) on each screen of a signed-in page, light and dark: the page's own session
 * cookie is used, and the colour scheme is emulated before each run.
 */
export async function lighthouseScores(page: Page, screens: readonly { name: string; url: string }[]) {
  for (const screen of screens) {
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
      // Lighthouse bundles its own puppeteer-core types; the page is the same protocol object.
      const result = await navigation(page as unknown as Parameters<typeof navigation>[0], screen.url, { config: desktopConfig, flags: { onlyCategories: [...CATEGORIES] } });
      const categories = result?.lhr.categories ?? {};
      const failed = Object.values(result?.lhr.audits ?? {})
        .filter((a) => a.scoreDisplayMode === 'binary' && a.score === 0)
        .map((a) => a.id);
      line(
        `dashboard: Lighthouse, ${screen.name} (${theme})`,
        `performance ${score(categories.performance?.score)}, accessibility ${score(categories.accessibility?.score)}, best practices ${score(categories['best-practices']?.score)}${failed.length ? `; failing: ${failed.join(', ')}` : ''}`,
      );
    }
  }
}
