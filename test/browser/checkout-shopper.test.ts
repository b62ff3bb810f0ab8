import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ViewportSize } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite, type Tab } from '../helpers/browser.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { answerOnThePhone, answerWaitingAttempt, type PhoneAnswer } from '../helpers/payments.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * The hosted checkout's hard moments in headless Chromium, as a shopper on a cheap phone meets
 * them: a prompt that does not come, failures, cancelling, a currency mobile money does not take,
 * what tells them the page can be trusted, and the same with JavaScript off.
 */
const PHONE: ViewportSize = { width: 360, height: 740 };
const DESKTOP: ViewportSize = { width: 1280, height: 800 };

describe("the shopper's hard moments in a real browser", browserSuiteOptions(), () => {
  const browser = useBrowser();
  const shop = useMerchantSite();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      // The phone never answers by itself: each test answers when it has seen what it came to see. With
      // the 8 s delay this had, a loaded machine once settled the first number while axe read the
      // waiting page, and the page went on to the shop under it.
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h', WORKER_INTERVAL: '100ms' });
      const db = () => ctx.gw.gateway.database.db;
      const answer = (chargeId: string, phone: PhoneAnswer) =>
        answerOnThePhone(ctx.gw, ctx.merchant.test_secret_key, chargeId, phone);
      const answerLatest = (txRef: string, phone: PhoneAnswer) =>
        answerWaitingAttempt(ctx.gw, ctx.merchant.test_secret_key, txRef, phone);

      async function openCheckout(
        viewport: ViewportSize = PHONE,
        overrides: Record<string, unknown> = {},
      ): Promise<Tab & { txRef: string }> {
        const body = currentBody({
          callback_url: `${shop.origin}/paid?order=7`,
          return_url: `${shop.origin}/cancelled`,
          ...overrides,
        });
        const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
        assert.equal(created.status, 201, created.text);
        const tab = await browser.newTab(viewport);
        await tab.page.goto(created.body.data.checkout_url);
        return { ...tab, txRef: String(body.tx_ref) };
      }

      test('waiting for approval: the full number typed, the time waited, and "Use a different number" back to the form; another number pays once, the first is refunded', async () => {
        const { page, problems, txRef } = await openCheckout();
        await page.fill('#mobile', '0899 817 565');
        await submitForm(page, '#pay-mobile');
        await page.locator('#approval').waitFor();
        assert.equal(
          await page.textContent('#sent-to'),
          '0899 817 565',
          'the whole number, so a typo would show (the server keeps only 0899xxxx65)',
        );
        assert.match((await page.textContent('.elapsed')) ?? '', /^0:0\d so far · it usually takes under a minute$/);
        const first = await page.textContent('#elapsed');
        await page.waitForFunction((shown) => document.getElementById('elapsed')?.textContent !== shown, first);
        await assertAccessible(page, 'the waiting page');
        await assertFitsEveryWidth(page, 'the waiting page');

        await submitForm(page, '#use-another-number');
        await page.locator('#mobile-form').waitFor();
        assert.equal(await page.inputValue('#mobile'), '0899 817 565', 'the number comes back to be corrected');
        assert.equal(await page.inputValue('#operator'), 'tnm');
        const session = await db()
          .selectFrom('checkout_sessions')
          .selectAll()
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow();
        assert.equal(session.status, 'pending', 'not cancelled');

        await page.fill('#mobile', '0990000000');
        await submitForm(page, '#pay-mobile');
        assert.equal(await page.textContent('#sent-to'), '0990 000 000');
        await answerLatest(txRef, { status: 'success' });
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');
        const charges = await db()
          .selectFrom('charges')
          .selectAll()
          .where('session_id', '=', session.id)
          .orderBy('created_at')
          .execute();
        assert.equal(charges.length, 2);
        const paid = await db()
          .selectFrom('checkout_sessions')
          .select(['status', 'paid_charge_id'])
          .where('id', '=', session.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          paid,
          { status: 'success', paid_charge_id: charges[1]!.id },
          'paid once, by the second number',
        );
        await answer(charges[0]!.charge_id, { status: 'success' });
        // The refund starts in the approval's own transaction; the sandbox then pays it back after
        // its delay, which here never comes (the refund's own end is the refund suites' to test).
        const refunds = await db()
          .selectFrom('refunds')
          .select(['source', 'amount_minor', 'status'])
          .where('charge_ref', '=', charges[0]!.id)
          .execute();
        assert.deepEqual(
          refunds,
          [{ source: 'uncounted', amount_minor: charges[0]!.amount_minor, status: 'pending' }],
          'the first request, approved late, is refunded in full',
        );
        assert.deepEqual(problems, []);
      });

      test('at 1280 px the waiting page fits and passes axe', async () => {
        const { page, txRef } = await openCheckout(DESKTOP);
        await page.fill('#mobile', '0990000000');
        await submitForm(page, '#pay-mobile');
        await page.locator('#approval').waitFor();
        await assertAccessible(page, 'the waiting page at 1280 px');
        await assertFitsEveryWidth(page, 'the waiting page');
        await answerLatest(txRef, { status: 'success' });
        await page.waitForURL((url) => url.origin === shop.origin);
      });
    });
  }

  describe('on sqlite, the page itself', () => {
    // The phone never answers by itself: each test declines when it has seen what it came to see, so a
    // slow machine cannot skip the waiting page (with a short delay the attempt could end before it loaded).
    const ctx = useTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '1h', CHECKOUT_MAX_FAILED_ATTEMPTS: '1' });

    /** The customer declines the session's attempt on the phone. */
    const declineOnThePhone = (txRef: string) =>
      answerWaitingAttempt(ctx.gw, ctx.merchant.test_secret_key, txRef, { status: 'failed' });

    async function openCheckout(
      viewport: ViewportSize,
      overrides: Record<string, unknown> = {},
      javaScriptEnabled = true,
    ): Promise<Tab & { txRef: string }> {
      const body = currentBody({
        callback_url: `${shop.origin}/paid?order=7`,
        return_url: `${shop.origin}/cancelled?order=7`,
        ...overrides,
      });
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      assert.equal(created.status, 201, created.text);
      const tab = await browser.newTab(viewport, { javaScriptEnabled });
      await tab.page.goto(created.body.data.checkout_url);
      return { ...tab, txRef: String(body.tx_ref) };
    }

    for (const viewport of [PHONE, DESKTOP]) {
      test(`at ${viewport.width} px the payment page shows the operator and card marks, the merchant's address and who secures it, and passes axe`, async () => {
        const { page, problems } = await openCheckout(viewport);
        const marks = async (pane: string) => (await page.locator(`${pane} .mark`).allTextContents()).join(', ');
        assert.equal(await marks('#pane-mobile'), 'Airtel Money, TNM Mpamba');
        await page.click('#method-card');
        assert.equal(await marks('#pane-card'), 'Visa, Mastercard');
        assert.equal(await page.getAttribute('.contact a', 'href'), 'mailto:shop@example.com');
        assert.equal((await page.textContent('.secure'))?.trim(), 'Secured by Lipira');
        await assertAccessible(page, `the payment page at ${viewport.width} px`);
        await assertFitsEveryWidth(page, 'the payment page');
        assert.deepEqual(problems, []);
      });
    }

    test("a merchant logo that fails to load gives way to the merchant's initial", async () => {
      const { page } = await openCheckout(PHONE, {
        customization: {
          title: 'Order 7',
          description: 'Two bags of maize',
          logo: `${shop.origin}/logo-that-is-not-an-image.png`,
        },
      });
      await page.locator('#merchant-monogram').waitFor();
      assert.equal(await page.locator('#merchant-logo').count(), 0, 'the broken image is gone');
      assert.equal(await page.textContent('#merchant-monogram'), 'T');
    });

    for (const viewport of [PHONE, DESKTOP]) {
      test(`at ${viewport.width} px a USD session offers card only and says why`, async () => {
        const { page } = await openCheckout(viewport, { currency: 'USD', amount: 25 });
        assert.equal(await page.locator('[role=tab]').count(), 0, 'no method to choose');
        assert.equal(await page.locator('#mobile').count(), 0);
        assert.ok(await page.isVisible('#card-number'), 'the card form is open even with the script running');
        assert.match(
          (await page.textContent('#card-only')) ?? '',
          /Airtel Money and TNM Mpamba take payments in MWK only, so this USD payment is made by card\./,
        );
        await assertAccessible(page, `a USD payment page at ${viewport.width} px`);
        await assertFitsEveryWidth(page, 'a USD payment page');
      });
    }

    test("without JavaScript: the waiting page shows the masked number and refreshes itself; the last try's page goes back to the shop by itself, with the same query", async () => {
      const { page, txRef } = await openCheckout(PHONE, {}, false);
      await page.fill('#mobile', '0990000001');
      await submitForm(page, '#pay-mobile');
      assert.equal(await page.textContent('#sent-to'), '0990xxxx01');
      await declineOnThePhone(txRef);
      await page.locator('#ended').waitFor({ timeout: 10_000 });
      assert.match((await page.textContent('#countdown')) ?? '', /Taking you back to Test Shop in 15 seconds\./);
      assert.ok(await page.isHidden('#stay'), 'nothing offered that cannot work');
      await page.waitForURL((url) => url.origin === shop.origin, { timeout: 25_000 });
      const landed = new URL(page.url());
      assert.equal(landed.pathname, '/cancelled');
      assert.deepEqual(Object.fromEntries(landed.searchParams), { order: '7', tx_ref: txRef, status: 'failed' });
    });

    test("with JavaScript the last try's page counts down and goes back to the shop by itself, unless asked to stay", async () => {
      const first = await openCheckout(PHONE);
      await first.page.fill('#mobile', '0990000001');
      await submitForm(first.page, '#pay-mobile');
      await declineOnThePhone(first.txRef);
      await first.page.locator('#ended').waitFor();
      assert.ok(await first.page.isVisible('#stay'));
      await first.page.click('#stay');
      const stopped = await first.page.textContent('#countdown');
      await sleep(1500);
      assert.equal(await first.page.textContent('#countdown'), stopped, 'the count stopped');
      assert.match(stopped ?? '', /Go back whenever you are ready\./);
      assert.equal(await first.page.evaluate(() => document.activeElement?.id), 'return');

      const second = await openCheckout(PHONE);
      await second.page.fill('#mobile', '0990000001');
      await submitForm(second.page, '#pay-mobile');
      await declineOnThePhone(second.txRef);
      await second.page.locator('#ended').waitFor();
      await second.page.waitForURL((url) => url.origin === shop.origin, { timeout: 25_000 });
      assert.deepEqual(Object.fromEntries(new URL(second.page.url()).searchParams), {
        order: '7',
        tx_ref: second.txRef,
        status: 'failed',
      });
    });

    test('without JavaScript: cancel opens a confirmation page; "keep paying" goes back, "yes" lands on return_url', async () => {
      const { page, txRef } = await openCheckout(PHONE, {}, false);
      const pageUrl = page.url();
      await page.click('#cancel');
      await page.locator('#cancel-page').waitFor();
      assert.equal(await page.textContent('h1'), 'Cancel this payment?');
      await assertFitsEveryWidth(page, 'the cancel confirmation page');
      await page.click('#keep-paying');
      await page.waitForURL(pageUrl);
      await page.click('#cancel');
      await submitForm(page, '#confirm-cancel');
      await page.waitForURL((url) => url.origin === shop.origin);
      assert.equal(new URL(page.url()).searchParams.get('tx_ref'), txRef);
      assert.equal(new URL(page.url()).searchParams.get('status'), 'failed');
    });

    test('the cancel confirmation page (what a browser without JavaScript gets) passes axe', async () => {
      const { page } = await openCheckout(PHONE);
      await page.goto(`${page.url()}/cancel`);
      await page.locator('#cancel-page').waitFor();
      await assertAccessible(page, 'the cancel confirmation page');
    });

    test("at 1280 px the card's code page names the card by brand and last four, fits and passes axe", async () => {
      const { page } = await openCheckout(DESKTOP);
      await page.click('#method-card');
      await page.fill('#card-number', '5555 5555 5555 4444');
      await page.fill('#card-expiry', '12/30');
      await page.fill('#card-cvv', '123');
      await submitForm(page, '#pay-card');
      assert.equal(await page.textContent('#otp-card'), 'Mastercard •••• 4444');
      await assertAccessible(page, 'the one-time code page at 1280 px');
      await assertFitsEveryWidth(page, 'the one-time code page');
    });
  });
});
