import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { useBrowser } from '../helpers/browser.ts';
import { dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import type { useTestGateway } from '../helpers/gateway.ts';
import { assertAccessible } from './axe.ts';
import { assertFits, CHECKED_WIDTHS } from './layout.ts';

/** The sections of a merchant's dashboard, in the order of its menu. */
export const MERCHANT_SECTIONS = [
  'Overview',
  'Payments',
  'Customers',
  'Payment links',
  'Payouts',
  'Balance',
  'Developers',
  'Settings',
  'Audit log',
];

/**
 * What the every-page-fits suites (every-page-fits*.test.ts) do to each dashboard page: fit every
 * checked width and pass axe there, and at 360 px open and close the header's menu.
 */
export function dashboardPageChecks(
  browser: ReturnType<typeof useBrowser>,
  ctx: ReturnType<typeof useTestGateway>,
): {
  check(page: Page, what: string): Promise<void>;
  checkMenu(page: Page, what: string, sections: string[]): Promise<void>;
  signedIn(role: 'owner' | 'viewer' | 'operator'): Promise<Page>;
} {
  /** The page fits each checked width and passes axe there; the tab is given its own size back. */
  async function check(page: Page, what: string): Promise<void> {
    const own = page.viewportSize() ?? { width: 1280, height: 800 };
    try {
      for (const width of CHECKED_WIDTHS) {
        await page.setViewportSize({ width, height: own.height });
        await assertFits(page, `${what} at ${width} px`);
        await assertAccessible(page, `${what} at ${width} px`);
      }
    } finally {
      await page.setViewportSize(own);
    }
  }

  /**
   * On a 360 px phone the sections, the mode switch and the account are behind the header's Menu
   * button: it opens them (every section of `sections`, on the screen, the open menu fitting and
   * passing axe) and closes them again. On a desktop there is no button and the sections show.
   */
  async function checkMenu(page: Page, what: string, sections: string[]): Promise<void> {
    const summary = page.locator('header details.menu > summary');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    try {
      await page.setViewportSize({ width: 360, height: 740 });
      assert.ok(await summary.isVisible(), `${what}: a Menu button at 360 px`);
      assert.equal(await nav.isVisible(), false, `${what}: the sections are behind the button`);
      await summary.click();
      assert.deepEqual(await nav.getByRole('link').allTextContents(), sections, `${what}: the sections in the menu`);
      for (const link of [
        ...(await nav.getByRole('link').all()),
        page.getByRole('button', { name: /^Switch to / }),
        page.getByRole('button', { name: 'Sign out' }).first(),
      ]) {
        const box = await link.boundingBox();
        assert.ok(
          box && box.x >= 0 && box.x + box.width <= 360 && box.y + box.height <= 740,
          `${what}: ${await link.textContent()} on the screen`,
        );
      }
      await assertFits(page, `${what} with the menu open at 360 px`);
      await assertAccessible(page, `${what} with the menu open at 360 px`);
      await summary.click();
      assert.equal(await nav.isVisible(), false, `${what}: the menu closes again`);
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.equal(await summary.isVisible(), false, `${what}: no Menu button on a desktop`);
      assert.ok(await nav.isVisible(), `${what}: the sections in the header on a desktop`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }

  async function signedIn(role: 'owner' | 'viewer' | 'operator'): Promise<Page> {
    const { page } = await browser.newTab({ width: 1280, height: 800 });
    await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, role, role === 'operator' ? null : ctx.merchant.id));
    await page.waitForURL((url) => url.pathname.startsWith('/dashboard'));
    return page;
  }

  return { check, checkMenu, signedIn };
}
