import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, ViewportSize } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite, type Tab } from '../helpers/browser.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { answerWaitingAttempt, type PhoneAnswer } from '../helpers/payments.ts';

/**
 * The hosted checkout end to end in headless Chromium: the page's own script (operator
 * detection, tabs, the approval poll) and the browser's own enforcement (CSP, form-action on
 * redirects) are part of what is tested, which the plain-HTTP flow tests cannot reach.
 */
describe('the hosted checkout in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const shop = useMerchantSite();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      // The phone never answers by itself: each attempt is answered through the test helper once the
      // browser waits on it. With a delay instead (300 ms, then 1.5 s), a loaded machine rendered the
      // waiting page after the payment had settled, and the browser went straight on to the shop.
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h' });
      const declined: PhoneAnswer = { status: 'failed', failure_code: 'insufficient_funds' };
      const answerLatest = (txRef: string, phone: PhoneAnswer) =>
        answerWaitingAttempt(ctx.gw, ctx.merchant.test_secret_key, txRef, phone);

      /** Creates a session through the API and opens its checkout_url in a fresh browser context. */
      async function openCheckout(
        overrides: Record<string, unknown> = {},
        viewport?: ViewportSize,
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

      async function verify(txRef: string) {
        const res = await call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key });
        assert.equal(res.status, 200, res.text);
        return res.body.data;
      }

      /** Waits until the browser is on the merchant's page at `path`, and returns where it landed. */
      async function landingOn(page: Page, path: string): Promise<URL> {
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === path);
        return new URL(page.url());
      }

      /**
       * Submits the mobile money form, waits until the browser has left the page it was on, and
       * answers on the phone; the caller then waits for how the attempt ends.
       */
      async function attemptMobile(page: Page, txRef: string, mobile: string, phone: PhoneAnswer): Promise<void> {
        await page.fill('#mobile', mobile);
        await page.evaluate(() => {
          (window as { leftBehind?: boolean }).leftBehind = true;
        });
        await submitForm(page, '#pay-mobile');
        await page.waitForFunction(() => !(window as { leftBehind?: boolean }).leftBehind);
        await answerLatest(txRef, phone);
      }

      /** The error box of the payment page the failed attempt leads back to. */
      async function failureShown(page: Page): Promise<string> {
        const error = page.locator('.error[role=alert]');
        await error.waitFor();
        return (await error.textContent()) ?? '';
      }

      test('a success number: the network is picked from the number, the approval page polls, the browser lands on callback_url', async () => {
        const { page, problems, txRef } = await openCheckout();
        assert.equal(await page.inputValue('#operator'), '');
        await page.locator('#mobile').pressSequentially('0990000000');
        assert.equal(await page.inputValue('#operator'), 'airtel', 'the page chose the network by itself');
        await submitForm(page, '#pay-mobile');
        await page.locator('#approval').waitFor();
        await answerLatest(txRef, { status: 'success' });
        const landed = await landingOn(page, '/paid');
        assert.equal(landed.searchParams.get('order'), '7', 'the query callback_url already had is kept');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        assert.equal(landed.searchParams.get('status'), 'success');
        const data = await verify(txRef);
        assert.equal(landed.searchParams.get('transaction_id'), data.reference);
        assert.equal(data.status, 'success');
        assert.equal(data.number_of_attempts, 1);
        assert.deepEqual(
          { ...data.authorization, completed_at: undefined },
          {
            channel: 'Mobile Money',
            card_number: null,
            expiry: null,
            brand: null,
            provider: 'Airtel Money',
            mobile_number: '+265990xxxx00',
            completed_at: undefined,
          },
        );
        assert.deepEqual(problems, [], 'no console errors, script errors or CSP violations on the way');
      });

      test('a failed attempt says what happened and what to do, with the tries left; the session stays payable; fail twice then succeed', async () => {
        const { page, txRef } = await openCheckout();
        for (const [i, tries] of [
          [1, '2 tries left'],
          [2, 'Last try'],
        ] as const) {
          await attemptMobile(page, txRef, '0990000001', declined);
          assert.equal(
            (await failureShown(page)).trim(),
            `Not enough money in the wallet — top up or use another number. ${tries}.`,
          );
          assert.equal(
            await page.inputValue('#mobile'),
            '0990000001',
            'the number typed is still there, to correct or try again',
          );
          if (i === 1) {
            await assertAccessible(page, 'the payment page after a failed attempt');
            await assertFitsEveryWidth(page, 'the payment page after a failed attempt');
          }
          const data = await verify(txRef);
          assert.equal(data.status, 'pending');
          assert.equal(data.number_of_attempts, i);
        }
        await attemptMobile(page, txRef, '0990000000', { status: 'success' });
        const landed = await landingOn(page, '/paid');
        assert.equal(landed.searchParams.get('status'), 'success');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        const data = await verify(txRef);
        assert.equal(landed.searchParams.get('transaction_id'), data.reference);
        assert.equal(data.status, 'success');
        assert.equal(data.number_of_attempts, 3);
        assert.equal(data.authorization.provider, 'Airtel Money');
      });

      test('the third failed attempt ends the session on our page, which counts down and whose button lands on return_url', async () => {
        const { page, txRef, problems } = await openCheckout();
        await attemptMobile(page, txRef, '0990000001', declined);
        await failureShown(page);
        await attemptMobile(page, txRef, '0899817566', declined);
        await failureShown(page);
        await attemptMobile(page, txRef, '0990000001', declined);
        await page.locator('#ended').waitFor();
        assert.equal(await page.textContent('h1'), 'This payment did not go through');
        assert.match(
          (await page.textContent('#ended .lead')) ?? '',
          /^Not enough money in the wallet\. That was the last try, so this payment has ended\./,
        );
        const shown = Number(await page.textContent('#countdown-seconds'));
        await page.waitForFunction(
          (before) => Number(document.getElementById('countdown-seconds')?.textContent) < before,
          shown,
        );
        await assertAccessible(page, "the last try's page");
        await assertFitsEveryWidth(page, "the last try's page");
        await page.click('#return');
        const landed = await landingOn(page, '/cancelled');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        assert.equal(landed.searchParams.get('status'), 'failed');
        const data = await verify(txRef);
        assert.equal(data.status, 'failed');
        assert.equal(data.number_of_attempts, 3);
        assert.equal(data.authorization, null);
        assert.deepEqual(problems, []);
      });

      test('cancel asks in place first; "keep paying" puts the page back; "yes" lands on return_url with status=failed', async () => {
        const { page, txRef } = await openCheckout();
        await page.click('#cancel');
        assert.ok(await page.isVisible('#cancel-confirm'));
        assert.ok(await page.isHidden('#cancel'));
        assert.equal(
          await page.evaluate(() => document.activeElement?.id),
          'cancel-question',
          'the question takes the focus, so a screen reader reads it',
        );
        assert.match(
          (await page.textContent('#cancel-question')) ?? '',
          /Cancel this payment\? You will go back to Test Shop without paying MWK 1,000\.00\./,
        );
        await assertAccessible(page, 'the payment page asking to confirm the cancel');
        await assertFitsEveryWidth(page, 'the payment page asking to confirm the cancel');
        await page.click('#keep-paying');
        assert.ok(await page.isHidden('#cancel-confirm'));
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'cancel');
        assert.equal((await verify(txRef)).status, 'pending');
        await page.click('#cancel');
        await submitForm(page, '#confirm-cancel');
        const landed = await landingOn(page, '/cancelled');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        assert.equal(landed.searchParams.get('status'), 'failed');
        const data = await verify(txRef);
        assert.equal(data.status, 'failed');
        assert.equal(data.number_of_attempts, 0);
        assert.equal(data.authorization, null);
      });

      test('a card with its one-time code lands on callback_url; only the masked card is reported', async () => {
        const { page, txRef } = await openCheckout();
        await page.click('#method-card');
        await page.fill('#card-number', '4242 4242 4242 4242');
        await page.fill('#card-expiry', '12/30');
        await page.fill('#card-cvv', '123');
        await submitForm(page, '#pay-card');
        assert.equal(await page.textContent('#otp-card'), 'Visa •••• 4242', 'the card as its holder knows it');
        await assertAccessible(page, 'the one-time code page');
        await assertFitsEveryWidth(page, 'the one-time code page');
        await page.fill('#otp', '1234');
        await submitForm(page, '#submit-otp');
        const landed = await landingOn(page, '/paid');
        assert.equal(landed.searchParams.get('order'), '7');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        assert.equal(landed.searchParams.get('status'), 'success');
        const data = await verify(txRef);
        assert.equal(landed.searchParams.get('transaction_id'), data.reference);
        assert.equal(data.status, 'success');
        assert.equal(data.number_of_attempts, 1);
        assert.deepEqual(
          { ...data.authorization, completed_at: undefined },
          {
            channel: 'Card',
            card_number: '424242******4242',
            expiry: '2030-12',
            brand: 'VISA',
            provider: null,
            mobile_number: null,
            completed_at: undefined,
          },
        );
      });

      test('a merchant title holding a script tag is shown as text and never runs', async () => {
        const title = '<script>window.__xss=1</script>';
        const { page } = await openCheckout({ customization: { title, description: 'Two bags of maize' } });
        assert.ok((await page.textContent('h1.order-title'))?.includes(title));
        assert.equal(await page.evaluate(() => (window as { __xss?: unknown }).__xss), undefined);
      });

      test('on a phone the page says TEST MODE, and at every width it fits, with the test numbers and cards open too', async () => {
        const { page } = await openCheckout({}, { width: 360, height: 740 });
        await assertAccessible(page, 'the payment page at 360 px');
        assert.ok(await page.isVisible('.test-banner'));
        assert.match((await page.textContent('.test-banner')) ?? '', /TEST MODE/);
        await assertFitsEveryWidth(page, 'the payment page');
        // The list of test numbers and cards is the widest thing on the page once it is open.
        await page.click('details.test-instruments > summary');
        await assertFitsEveryWidth(page, 'the payment page with the test instruments open');
        for (const method of ['#method-card', '#method-bank']) {
          await page.click(method);
          await assertFitsEveryWidth(page, `the payment page with ${method} chosen`);
        }
      });
    });
  }
});
