import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite, type Tab } from '../helpers/browser.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { waitingAttempt } from '../helpers/payments.ts';

/**
 * Paying the hosted checkout by bank transfer in headless Chromium: the account shown with its
 * copy buttons and time left, the page waiting on its own until the sandbox's transfer arrives,
 * and setting the account aside to pay another way.
 */
describe('bank transfer on the hosted checkout in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const shop = useMerchantSite();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      // Nothing is paid by itself: each test pays through the test helpers once it has checked the
      // page that waits (a delay was outrun on loaded machines, 5 s by axe alone: the checked page
      // was gone under it).
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h' });

      async function testHelper(path: string, body: unknown): Promise<void> {
        const res = await call(ctx.gw.url, `/test-helpers/${path}`, { key: ctx.merchant.test_secret_key, body });
        assert.equal(res.status, 200, res.text);
      }

      async function openCheckout(amount: number): Promise<Tab & { txRef: string }> {
        const body = currentBody({
          amount,
          callback_url: `${shop.origin}/paid`,
          return_url: `${shop.origin}/cancelled`,
        });
        const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
        assert.equal(created.status, 201, created.text);
        const tab = await browser.newTab({ width: 390, height: 844 });
        await tab.page.goto(created.body.data.checkout_url);
        return { ...tab, txRef: String(body.tx_ref) };
      }

      async function verify(txRef: string) {
        const res = await call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key });
        assert.equal(res.status, 200, res.text);
        return res.body.data;
      }

      test('the bank transfer tab gives a one-time account, the page waits for the transfer, and the browser lands on callback_url', async () => {
        const { page, problems, txRef } = await openCheckout(2500);
        await page.click('#method-bank');
        assert.equal(await page.getAttribute('#method-bank', 'aria-selected'), 'true');
        await submitForm(page, '#pay-bank');
        await page.locator('#transfer').waitFor();
        assert.equal(await page.textContent('h1'), 'Pay by bank transfer');
        assert.match((await page.textContent('#account-number')) ?? '', /^\d{10}$/);
        assert.equal(await page.textContent('#bank-name'), 'Lipira Sandbox Bank');
        assert.equal(await page.textContent('#account-name'), 'Lipira / Test Shop');
        assert.equal(await page.textContent('#transfer-amount'), 'MWK 2,500.00');
        assert.match((await page.textContent('#time-left')) ?? '', /^(59|60):\d\d$/);
        const copy = page.locator('button[aria-label="Copy account number"]');
        assert.ok(await copy.isVisible(), 'the copy button is shown where the clipboard can be written');
        await assertAccessible(page, 'the bank transfer page');
        await testHelper(`bank-transfers/${await waitingAttempt(ctx.gw, txRef)}/receive`, { amount: 2500 });
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');
        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('status'), 'success');
        const data = await verify(txRef);
        assert.equal(data.status, 'success');
        assert.equal(data.authorization.channel, 'Mobile Bank Transfer');
        assert.deepEqual(problems, [], 'no console errors, script errors or CSP violations on the way');
      });

      test('an account nobody pays into can be set aside: "Use another method" opens the form again and mobile money pays', async () => {
        // The sandbox sends nothing for an amount whose kwacha end in 14.
        const { page, problems, txRef } = await openCheckout(1014);
        await page.click('#method-bank');
        await submitForm(page, '#pay-bank');
        await page.locator('#transfer').waitFor();
        await assertFitsEveryWidth(page, 'the bank transfer page');
        await submitForm(page, '#use-another-method');
        await page.locator('#mobile-form').waitFor();
        await page.click('#method-mobile');
        await page.fill('#mobile', '0990000000');
        await submitForm(page, '#pay-mobile');
        await testHelper(`direct-charges/${await waitingAttempt(ctx.gw, txRef)}/complete`, { status: 'success' });
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');
        const data = await verify(txRef);
        assert.equal(data.status, 'success');
        assert.equal(data.authorization.channel, 'Mobile Money');
        assert.deepEqual(problems, []);
      });
    });
  }
});
