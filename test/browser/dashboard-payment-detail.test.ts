import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, saveDashboardScreenshot, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * A payment's dashboard page in headless Chromium, through its real CSP and cookies, as people
 * use it: an owner on a phone refunds part of a payment through its confirmation page and sees the
 * balance and the timeline change, and cancels a full refund at its confirmation; presses
 * Retry on a failed webhook once the receiver answers 200 and sees it delivered; a viewer finds no
 * refund button (and the POST is refused); another merchant's user finds nothing at the payment's
 * address. axe checks every page; each fits a 360 px phone.
 */
describe('the payment detail page in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      let gw: TestGateway;
      let merchant: MerchantCredentials;
      let receiver: Receiver;
      let answer = 500;

      before(async () => {
        gw = await startTestGateway(kind, { WEBHOOK_RETRY_SCHEDULE: '100ms', WORKER_INTERVAL: '100ms' });
        receiver = await startReceiver(() => ({ status: answer }));
        merchant = await gw.newMerchant('Chikondi Crafts');
        await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
      });
      after(async () => {
        await assertLedgerBalanced(gw);
        await receiver.close();
        await gw.close();
      });

      const db = () => gw.gateway.database.db;
      /** A payment of MWK 1,000 made at the hosted page; its session id, the page's address. */
      async function paid(): Promise<{ id: string; txRef: string }> {
        const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess);
        const { id } = await db()
          .selectFrom('checkout_sessions')
          .select('id')
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow();
        return { id, txRef };
      }
      async function signedIn(
        role: 'owner' | 'developer' | 'viewer',
        merchantId = merchant.id,
        viewport = { width: 1280, height: 800 },
      ) {
        const tab = await browser.newTab(viewport);
        await signInPage(tab.page, gw.url, await dashboardUser(gw, role, merchantId));
        await tab.page.waitForURL(`${gw.url}/dashboard`);
        return tab;
      }
      const text = async (page: Page, selector: string) =>
        ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ');
      /** The collection balance the page shows, in MWK. */
      const collectionBalance = async (page: Page) =>
        Number((await text(page, 'dl.balance dd >> nth=0')).replace(/[^\d.]/g, ''));
      /** Checked at every width, and by axe on a phone too. */
      async function checkPhone(page: Page, what: string) {
        await assertFitsEveryWidth(page, what);
        await page.setViewportSize({ width: 360, height: 740 });
        await assertAccessible(page, `${what} on a phone`);
        await page.setViewportSize({ width: 1280, height: 800 });
      }

      test("on a phone, refund part of it through its confirmation page, and see the balance and the payment's timeline change", async () => {
        const { id } = await paid();
        // Another payment's money, so that the balance covers a full refund of this one (net of its fee, it would not).
        await paid();
        const phone = { width: 360, height: 740 };
        const { page, problems } = await signedIn('owner', merchant.id, phone);
        const payment = `${gw.url}/dashboard/payments/${id}`;
        const refunds = () =>
          db().selectFrom('refunds').select('amount_minor').where('reason', '=', 'One bag returned');
        await page.goto(payment);
        await checkDashboardPage(page, 'the payment page');
        await page.setViewportSize(phone);
        const balanceBefore = await collectionBalance(page);
        assert.match(await text(page, 'main'), /Already refunded MWK 0.00 of MWK 1,000.00/);
        assert.match(await text(page, '.warning'), /Refunds cannot be undone/);
        assert.equal(await page.getByLabel('Amount to refund (MWK)').inputValue(), '', 'no amount until one is typed');

        await page.getByLabel('Amount to refund (MWK)').fill('250');
        await page.getByLabel('Reason').fill('One bag returned');
        await page.click('button:text("Review the refund")');
        await page.waitForURL(`${payment}/refund`);
        assert.equal(await text(page, 'h1'), 'Confirm the refund');
        const facts = await text(page, 'main');
        assert.match(facts, /Refund\s*MWK 250\.00/);
        assert.match(facts, /To\s*Jane Banda \(jane@example.com\)/);
        assert.match(facts, /Back to\s*Airtel Money \+265990xxxx\d\d/);
        assert.match(facts, /Left to refund after this\s*MWK 750\.00/);
        assert.match(facts, /Taken from\s*Your test-mode collection balance/);
        await saveDashboardScreenshot(page, 'refund-confirm-phone');
        await checkDashboardPage(page, 'the refund confirmation');
        await page.setViewportSize(phone);
        assert.deepEqual(await refunds().execute(), [], 'nothing refunded before Confirm');

        await submitForm(page, 'button:text("Refund MWK 250.00")');
        await page.waitForURL(/\?refunded=/);
        assert.match(await text(page, '[role=status]'), /Refund \S+ of MWK 250.00 requested/);
        assert.match(await text(page, 'main'), /Already refunded MWK 250.00 of MWK 1,000.00/);
        assert.equal(
          await collectionBalance(page),
          balanceBefore - 242.5,
          "the balance is MWK 250 lower, less the payment fee's share given back (3 % of 250)",
        );
        assert.match(
          await text(page, 'ol.timeline'),
          /Refund \S+ of MWK 250.00 (Pending|Successful).*One bag returned/,
        );
        assert.equal(await page.getByLabel('Amount to refund (MWK)').inputValue(), '', 'empty again');
        await page.setViewportSize({ width: 1280, height: 800 });
        await checkDashboardPage(page, 'the payment page after a refund', 'payment-detail');
        await page.setViewportSize(phone);

        await page.click('button:text("Full refund (MWK 750.00)")');
        await page.waitForURL(`${payment}/refund`);
        assert.match(await text(page, 'main'), /Refund\s*MWK 750\.00.*Left to refund after this\s*MWK 0\.00/);
        await page.click('main a.cancel');
        await page.waitForURL(payment);
        assert.match(await text(page, 'main'), /Already refunded MWK 250.00 of MWK 1,000.00/, 'Cancel refunds nothing');
        assert.equal((await refunds().execute()).length, 1);

        await page.click('button:text("Review the refund")');
        assert.equal(page.url(), payment, 'the browser asks for an amount before anything is sent');
        await page.getByLabel('Amount to refund (MWK)').fill('5000');
        await page.click('button:text("Review the refund")');
        await page.waitForSelector('[role=alert]');
        assert.match(await text(page, '[role=alert]'), /must not be greater than 750/);
        await checkDashboardPage(page, 'the refund form with its error');
        assert.deepEqual(
          problems.filter((problem) => !/status of 422 /.test(problem)),
          [],
          "no console error or CSP violation, the refused form's 422 aside",
        );
      });

      test('retry a failed webhook against a receiver that now answers 200', async () => {
        answer = 500;
        const { id, txRef } = await paid();
        const delivery = await eventually('the webhook to fail', async () => {
          const found = await db()
            .selectFrom('webhook_deliveries')
            .selectAll()
            .where('tx_ref', '=', txRef)
            .executeTakeFirst();
          return found?.status === 'failed' && found;
        });
        const { page, problems } = await signedIn('developer');
        await page.goto(`${gw.url}/dashboard/payments/${id}`);
        const block = `#delivery-${delivery.id}`;
        assert.match(await text(page, block), /Failed after 2 attempts/);
        await assertAccessible(page, 'the payment page with a failed webhook');
        await assertFitsEveryWidth(page, 'the payment page with a failed webhook');
        answer = 200;
        try {
          await submitForm(page, `${block} button:text("Retry")`);
          await page.waitForURL(/\?retried=/);
          assert.match(
            await text(page, '[role=status]'),
            new RegExp(`Webhook ${delivery.id} is queued to be sent again`),
          );
          await eventually('the page to show it delivered', async () => {
            await page.reload();
            return /Delivered after 3 attempts/.test(await text(page, block));
          });
          assert.match(await text(page, block), /HTTP 200/);
          await assertAccessible(page, 'the payment page once the webhook is delivered');
          await assertFitsEveryWidth(page, 'the payment page once the webhook is delivered');
        } finally {
          answer = 500;
        }
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('a viewer who cannot refund: the button absent and the POST refused', async () => {
        const { id } = await paid();
        const { page, problems } = await signedIn('viewer');
        await page.goto(`${gw.url}/dashboard/payments/${id}`);
        assert.equal(await page.locator('button:text("Refund")').count(), 0, 'no refund button');
        assert.equal(await page.locator('button:text("Retry")').count(), 0, 'no retry button');
        assert.match(await text(page, 'main'), /Your role cannot refund payments/);
        await assertAccessible(page, "a viewer's payment page");
        await checkPhone(page, "a viewer's payment page");
        const csrf = await page.locator('input[name=csrf] >> nth=0').inputValue();
        const posted = await page.request.post(`${gw.url}/dashboard/payments/${id}/refund`, {
          form: { csrf, amount: '100' },
          headers: { origin: gw.url },
          maxRedirects: 0,
        });
        assert.equal(posted.status(), 403, 'the refund is refused');
        assert.equal(
          (await db().selectFrom('refunds').select('id').where('reason', 'is', null).execute()).length,
          0,
          'nothing refunded',
        );
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test("merchant A's user unable to open merchant B's payment by URL", async () => {
        const { id, txRef } = await paid();
        const other = await gw.newMerchant('Other Shop');
        const { page, problems } = await signedIn('owner', other.id);
        const response = await page.goto(`${gw.url}/dashboard/payments/${id}`);
        assert.equal(response?.status(), 404);
        assert.equal(await text(page, 'h1'), 'No such payment');
        assert.ok(!(await page.content()).includes(txRef), 'nothing of the payment is shown');
        await assertAccessible(page, 'the not-found page');
        await saveDashboardScreenshot(page, 'not-found');
        await checkPhone(page, 'the not-found page');
        assert.deepEqual(
          problems.filter((problem) => !/status of 404 /.test(problem)),
          [],
          "no console error or CSP violation, the page's own 404 aside",
        );
      });
    });
  }
});
