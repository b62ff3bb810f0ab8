import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserSuiteOptions, useBrowser } from '../helpers/browser.ts';
import { dashboardUser, saveDashboardScreenshot, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS, verify } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

/** Where an element is drawn, failing when it is not. */
async function boxOf(locator: Locator, what: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is drawn`);
  return box;
}

/** Fails unless the element is drawn within the window's width, neither cut off nor scrolled to. */
async function assertWithinWidth(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await boxOf(locator, what);
  const width = page.viewportSize()!.width;
  assert.ok(
    box.x >= 0 && box.x + box.width <= width,
    `${what} is within the ${width} px window (from ${Math.round(box.x)} to ${Math.round(box.x + box.width)})`,
  );
}

/**
 * The dashboard on the Android phone most merchants in Malawi carry (360 × 740) and on a desktop:
 * the header, its menu and the test-mode notice leave the screen to the page, the menu works
 * without scripts, the payments list's rows show reference, amount, status and date without
 * scrolling sideways, the overview's chart labels its axes at a readable size and says why it is
 * empty, keys and ids have Copy buttons (without scripts the value is still text to select), and
 * on a desktop fields and buttons are as wide as what they take.
 */
describe('the dashboard on a phone', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });
      let txRef = '';

      before(async () => {
        const key = ctx.merchant.test_secret_key;
        const failed = chargeBody({ mobile: TEST_NUMBERS.airtelFailed, amount: 2500 });
        assert.equal((await initializeCharge(ctx.gw, key, failed)).status, 201);
        await verify(ctx.gw, key, String(failed.charge_id), 'failed');
        // The newest, so the first row of the list: its long reference and address are what must fit.
        txRef = (
          await payByMobileMoney(ctx.gw.url, key, TEST_NUMBERS.airtelSuccess, {
            tx_ref: `order-2026-11-28-kumudzi-market-${Date.now()}-a-long-merchant-reference`,
            email: 'chikondi.mwale-banda.accounts.payable@kumudzi-market-and-crafts.example.com',
            amount: 1_250_000,
          })
        ).txRef;
      });

      async function signedIn(viewport = PHONE, javaScriptEnabled = true, merchantId = ctx.merchant.id) {
        const tab = await browser.newTab(viewport, { javaScriptEnabled });
        await signInPage(tab.page, ctx.gw.url, await dashboardUser(ctx.gw, 'owner', merchantId));
        await tab.page.waitForURL(`${ctx.gw.url}/dashboard`);
        return tab;
      }

      test('at 360 × 740 the header, its menu and the test-mode notice take at most 120 px, and the menu opens and closes without scripts', async () => {
        const { page } = await signedIn(PHONE, false);
        const header = await boxOf(page.locator('header.top'), 'the header');
        const notice = await boxOf(page.locator('.test-banner'), 'the test-mode notice');
        const main = await boxOf(page.locator('main'), 'the page');
        assert.ok(main.y <= 120, `the page starts ${Math.round(main.y)} px down, after the header and the notice`);
        assert.ok(header.height <= 72, `the header is one line (${Math.round(header.height)} px)`);
        assert.ok(notice.height <= 28, `the test-mode notice is one line (${Math.round(notice.height)} px)`);
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
          'the page does not scroll sideways',
        );

        const menu = page.getByRole('navigation', { name: 'Dashboard' });
        assert.equal(await menu.isVisible(), false, 'the sections are behind the Menu button');
        await page.click('header summary:text("Menu")');
        assert.ok(await menu.isVisible(), 'the button opens the menu');
        assert.ok(
          (await boxOf(page.locator('.menu-panel'), 'the open menu')).y + 1 >= header.y + header.height,
          'the menu opens under the header',
        );
        await page.click('header summary:text("Menu")');
        assert.equal(await menu.isVisible(), false, 'and closes it');
        await page.click('header summary:text("Menu")');
        await Promise.all([page.waitForURL(`${ctx.gw.url}/dashboard/payments`), menu.getByText('Payments').click()]);
        assert.equal(await menu.isVisible(), false, 'a new page starts with the menu closed');
      });

      test('the first payments row shows reference, amount, status and date within 360 px; a desktop shows them as columns', async () => {
        const { page, problems } = await signedIn();
        await saveDashboardScreenshot(page, 'overview-phone', { fullPage: false });
        await page.click('header summary:text("Menu")');
        await saveDashboardScreenshot(page, 'menu-phone', { fullPage: false });
        await Promise.all([
          page.waitForURL(`${ctx.gw.url}/dashboard/payments`),
          page.getByRole('navigation', { name: 'Dashboard' }).getByText('Payments').click(),
        ]);
        const first = page.locator('main tbody tr').first();
        const cells = {
          reference: first.locator('td[data-label="Reference"] a'),
          amount: first.locator('td[data-label="Amount"]'),
          status: first.locator('td[data-label="Status"] .status'),
          date: first.locator('td[data-label="Date"]'),
        };
        assert.equal(await cells.reference.textContent(), txRef, 'the newest payment first');
        assert.equal(await cells.amount.textContent(), 'MWK 1,250,000.00');
        assert.equal(await cells.status.textContent(), 'Successful');
        for (const [name, cell] of Object.entries(cells))
          await assertWithinWidth(page, cell, `the first row's ${name}`);
        const label = await first
          .locator('td[data-label="Amount"]')
          .evaluate((cell) => getComputedStyle(cell, '::before').content);
        assert.match(label, /Amount/, 'each line of the card says what it is');
        // Kept for screen readers, out of sight: a 1 px box.
        assert.ok(
          (await boxOf(page.locator('main thead'), 'the headings')).height <= 1,
          'no column headings above the cards',
        );
        await page.locator('main table').scrollIntoViewIfNeeded();
        await saveDashboardScreenshot(page, 'payments-phone');

        await page.setViewportSize(DESKTOP);
        assert.ok(
          (await boxOf(page.locator('main thead'), 'the headings')).height > 20,
          'a desktop has the column headings',
        );
        const tops = await Promise.all(
          ['Reference', 'Amount', 'Status', 'Date'].map(
            async (label) => (await boxOf(first.locator(`td[data-label="${label}"]`), label)).y,
          ),
        );
        assert.ok(
          Math.max(...tops) === Math.min(...tops),
          `the row's cells side by side on a desktop (tops ${tops.join(', ')})`,
        );
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('the chart labels both axes at 12 px or more on a phone, and an empty chart says why', async () => {
        const { page } = await signedIn();
        const labels = page.locator('.chart-y span, .chart-x span');
        assert.equal(await labels.count(), 6, 'three amounts up the side, three days along the bottom');
        assert.deepEqual(await page.locator('.chart-x span').allTextContents(), await expectedDays(page));
        for (const label of await labels.all()) {
          const size = await label.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
          assert.ok(size >= 12, `${await label.textContent()} is ${size} px`);
          await assertWithinWidth(page, label, `the axis label ${await label.textContent()}`);
        }
        assert.equal(await page.locator('.chart-y span').first().textContent(), 'MWK 1,250,000.00', 'the best day');

        const quiet = await ctx.gw.newMerchant('Quiet Shop');
        const empty = (await signedIn(PHONE, true, quiet.id)).page;
        assert.equal(await empty.locator('figure.chart svg').count(), 0, 'no empty axes');
        assert.equal(
          await empty.locator('figure.chart figcaption').textContent(),
          'No test payment succeeded or failed in the last 30 days.',
        );
        const unlucky = await ctx.gw.newMerchant('Unlucky Shop');
        const failed = chargeBody({ mobile: TEST_NUMBERS.airtelFailed });
        assert.equal((await initializeCharge(ctx.gw, unlucky.test_secret_key, failed)).status, 201);
        await verify(ctx.gw, unlucky.test_secret_key, String(failed.charge_id), 'failed');
        const none = (await signedIn(PHONE, true, unlucky.id)).page;
        assert.equal(
          await none.locator('figure.chart figcaption').textContent(),
          'No test payment succeeded in the last 30 days: 1 failed.',
        );
      });

      test('Copy buttons copy keys and ids and say so; without scripts the value is text to select', async () => {
        const { page, problems } = await signedIn(DESKTOP);
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.gw.url });
        await page.goto(`${ctx.gw.url}/dashboard/developers`);
        const copy = page.getByRole('button', { name: 'Copy the test public key' });
        assert.ok(await copy.isVisible(), 'a Copy button beside the public key');
        await copy.click();
        await page.locator('#copied', { hasText: 'Copied the test public key.' }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), ctx.merchant.test_public_key);
        assert.equal(await copy.textContent(), 'Copied', 'the button says it');
        assert.equal(await page.locator('#copied').getAttribute('aria-live'), 'polite');

        const sessionId = (
          await ctx.gw.gateway.database.db
            .selectFrom('checkout_sessions')
            .select('id')
            .where('tx_ref', '=', txRef)
            .executeTakeFirstOrThrow()
        ).id;
        await page.goto(`${ctx.gw.url}/dashboard/payments/${sessionId}`);
        await page.getByRole('button', { name: 'Copy the tx_ref' }).click();
        await page.locator('#copied', { hasText: 'Copied the tx_ref.' }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), txRef);
        await page.setViewportSize(PHONE);
        await assertWithinWidth(page, page.getByRole('button', { name: 'Copy the tx_ref' }), 'the Copy button');
        assert.deepEqual(problems, [], 'no console error or CSP violation');

        const scriptless = (await signedIn(DESKTOP, false)).page;
        await scriptless.goto(`${ctx.gw.url}/dashboard/developers`);
        assert.equal(
          await scriptless.locator('button[data-copy]').first().isVisible(),
          false,
          'no button that cannot work',
        );
        const key = scriptless.locator('code.key', { hasText: ctx.merchant.test_public_key });
        assert.equal(await key.textContent(), ctx.merchant.test_public_key, 'the key as text');
        assert.notEqual(await key.evaluate((element) => getComputedStyle(element).userSelect), 'none');
      });

      test('on a desktop fields and buttons are as wide as what they take', async () => {
        const { page } = await signedIn(DESKTOP);
        await page.goto(`${ctx.gw.url}/dashboard/developers`);
        const widthOf = async (locator: Locator, what: string) => (await boxOf(locator, what)).width;
        const overlap = await widthOf(page.getByLabel(/Old secret keys keep working for/), 'the overlap field');
        assert.ok(overlap <= 200, `the overlap field (24h) is ${Math.round(overlap)} px wide`);
        const url = await widthOf(page.getByLabel(/Webhook URL/), 'the webhook URL field');
        assert.ok(url <= 520, `the webhook URL field is ${Math.round(url)} px wide`);
        const roll = await widthOf(page.getByRole('button', { name: 'Roll the test secret key' }), 'the roll button');
        assert.ok(roll <= 300, `the roll button is ${Math.round(roll)} px wide`);
        await page.goto(`${ctx.gw.url}/dashboard/settings`);
        const colour = await widthOf(page.getByLabel(/Brand colour/), 'the brand colour field');
        assert.ok(colour <= 140, `the brand colour field (#rrggbb) is ${Math.round(colour)} px wide`);
        const name = await widthOf(page.getByLabel('Business name'), 'the business name field');
        assert.ok(name <= 400, `the business name field is ${Math.round(name)} px wide`);
      });
    });
  }
});

/** The first, middle and last of the chart's 30 days as its axis writes them (`30 Oct`), from the numbers table. */
async function expectedDays(page: Page): Promise<string[]> {
  const days = (await page.locator('.chart-numbers tbody tr td:first-child').allTextContents()).reverse();
  const short = (date: string) =>
    new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  return [days[0]!, days[Math.floor(days.length / 2)]!, days.at(-1)!].map(short);
}
