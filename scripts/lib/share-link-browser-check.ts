// The page a share link opens, in Chromium: it opens without a key, runs no script (none is on the
// page, and the CSP forbids any), passes axe-core (no serious or critical violation), reads at
// 375 px without sideways scrolling, says the household in words, and opens nothing once revoked.
import type { BrowserContext } from 'playwright-core';
import { axe } from './dashboard-browser-check.ts';

type Check = (label: string, condition: boolean, detail?: string) => boolean;

export async function checkSharePage(context: BrowserContext, url: string, revoke: () => Promise<number>, check: Check, screenshots: string): Promise<string> {
  const page = await context.newPage();
  try {
    const consoleProblems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleProblems.push(message.text());
    });
    await page.setViewportSize({ width: 375, height: 800 });
    const reply = await page.goto(url);
    check('a share link opens without a key → 200', reply?.status() === 200, `status ${reply?.status()}`);
    const headers = reply?.headers() ?? {};
    check(
      'the shared page has a strict CSP, noindex, no referrer and no-store',
      (headers['content-security-policy'] ?? '').startsWith("default-src 'none'") && (headers['x-robots-tag'] ?? '').includes('noindex') &&
        headers['referrer-policy'] === 'no-referrer' && headers['cache-control'] === 'no-store',
      JSON.stringify(headers),
    );
    const scripts = await page.locator('script').count();
    check('the shared page has no script', scripts === 0, `${scripts} script elements`);
    const text = await page.locator('main').innerText();
    check('the shared page says the household in words (state, programs, money, the chart)', /Programs to check/.test(text) && /\$[0-9,]+\.[0-9]{2} an hour/.test(text) && (await page.locator('main svg').count()) === 1, text.slice(0, 500));
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    check('the shared page fits a 375 px wide screen (no sideways scroll)', width <= 375, `scrollWidth ${width}`);
    const violations = await axe(page);
    check('axe: no serious or critical violations on the shared page', violations.length === 0, violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`).join('\n'));
    await page.screenshot({ path: `${screenshots}/shared-page-375.png`, fullPage: true, animations: 'disabled' });
    check('no console errors (CSP violations included) on the shared page', consoleProblems.length === 0, consoleProblems.join('\n'));
    const revoked = await revoke();
    const again = await page.goto(url);
    check('revoked, the link opens no more (404)', revoked === 200 && again?.status() === 404, `revoke ${revoked}, then ${again?.status()}`);
    return `shared page: opened at 375 px (${width} px wide), ${violations.length} serious or critical axe violations, 404 once revoked`;
  } finally {
    await page.close();
  }
}
