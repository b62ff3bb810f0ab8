import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { formatHumanDate } from '../../src/shared/time.ts';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { eventually, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';

/**
 * A refund the balance cannot cover, seen in a real browser: an owner refunds a whole payment
 * whose fee the gateway keeps (REFUND_RETURNS_FEE=off) right after it settled into the main
 * balance at once; the payment's page says the refund waits and why, until a later payment covers
 * it and it goes out. The balance page says test payments settle at once, and, in live mode, when
 * the next settlement runs, in the gateway's time zone. axe checks each page; each fits a phone.
 */
describe('a waiting refund and the next settlement in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, {
        REFUND_RETURNS_FEE: 'off',
        TEST_SETTLEMENT: 'immediate',
        SANDBOX_MOBILE_DELAY: '50ms',
        WORKER_INTERVAL: '50ms',
      });
      const text = async (page: Page, selector: string) =>
        ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ');
      const sessionOf = async (txRef: string) =>
        (
          await ctx.gw.gateway.database.db
            .selectFrom('checkout_sessions')
            .select('id')
            .where('tx_ref', '=', txRef)
            .executeTakeFirstOrThrow()
        ).id;

      test('the payment page shows why a refund waits, until it goes out; the balance page when money settles', async () => {
        const merchant = await ctx.gw.newMerchant('Chikondi Crafts');
        const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
          amount: 1000,
        });
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, 'owner', merchant.id));
        await page.waitForURL(`${ctx.gw.url}/dashboard`);

        const paymentPage = `${ctx.gw.url}/dashboard/payments/${await sessionOf(paid.txRef)}`;
        await page.goto(paymentPage);
        assert.match(await text(page, 'dl.balance'), /Main balance\s*MWK 970\.00/, 'settled at once');
        await page.click('button:text("Full refund")');
        await page.waitForURL(/\/refund$/);
        const reason =
          'The balance does not cover the MWK 1,000.00 this refund takes from it yet: it goes out when incoming money covers it.';
        assert.match(await text(page, 'p.warning'), new RegExp(`^${escape(reason)} A refund cannot be undone`));
        await checkDashboardPage(page, 'the confirmation of a refund that will wait', 'refund-confirm-waits');
        await submitForm(page, 'button:text("Refund MWK 1,000.00")');
        await page.waitForURL(/\?refunded=/);
        assert.match(await text(page, '[role=status]'), new RegExp(`requested\\. It waits: ${escape(reason)}`));
        assert.match(
          await text(page, '.waiting-refunds'),
          new RegExp(`Waiting for the balance:\\s*Refund rf_\\w+ of MWK 1,000\\.00 waits: ${escape(reason)}`),
        );
        assert.match(await text(page, 'ol.timeline'), /Refund rf_\w+ of MWK 1,000\.00 Pending: waits for the balance/);
        assert.match(await text(page, 'ol.timeline'), new RegExp(`Log Refund rf_\\w+ waits: ${escape(reason)}`));
        assert.match(await text(page, 'dl.balance'), /Main balance\s*MWK 970\.00/, 'nothing taken while it waits');
        await checkDashboardPage(page, 'the payment page with a waiting refund', 'payment-refund-waiting');

        await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, { amount: 100 });
        await eventually('the refund to go out', async () => {
          await page.goto(paymentPage);
          return (await page.locator('.waiting-refunds').count()) === 0;
        });
        assert.match(await text(page, 'ol.timeline'), /Log Refund rf_\w+ no longer waits: the balance covers it/);
        assert.match(await text(page, 'dl.balance'), /Main balance\s*MWK 67\.00/, '970 + 97 less the 1,000 refunded');

        await page.click('nav.sections a:text("Balance")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/balance`);
        assert.equal(
          await text(page, 'p.settlement'),
          'Test payments settle at once: they are credited to the main balance as they succeed.',
        );
        // The settlement worker's first look sets the live marker the next settlement counts from.
        const marker = await eventually('the live settlement marker', () =>
          ctx.gw.gateway.database.db
            .selectFrom('app_state')
            .select('value')
            .where('key', '=', 'last_settlement_at')
            .executeTakeFirst(),
        );
        await submitForm(page, 'button:text("Switch to live")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/balance`);
        assert.equal(
          await text(page, 'p.settlement'),
          `Collected money moves to main every 24 hours. Next settlement: ${formatHumanDate(Number(marker.value) + 86_400_000, 'Africa/Blantyre')}.`,
        );
        await checkDashboardPage(page, 'the live balance page with its next settlement', 'balance-next-settlement');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});

/** Text as a regular expression matching it literally. */
const escape = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
