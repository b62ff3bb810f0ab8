import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuiteOptions, useBrowser, type MerchantSite } from '../helpers/browser.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { startExampleShop } from '../helpers/example-shop.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';

/**
 * examples/shop.html in headless Chromium, served from an origin other than the gateway's: the
 * inline popup (a CORS create with the public key, the hosted page in a frame only that origin may
 * hold, the result posted back) and the HTML checkout form.
 */
describe('the inline popup and the HTML checkout in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '300ms' });
      let shop: MerchantSite;
      before(async () => {
        shop = await startExampleShop(ctx.gw.url, ctx.merchant.test_public_key);
      });
      after(() => shop.close());

      async function openPopup(page: Page) {
        await page.click('#pay-popup');
        const dialog = page.locator('[role=dialog]');
        await dialog.waitFor();
        const frame = page.frameLocator('[role=dialog] iframe');
        await frame.locator('#mobile').waitFor();
        return { dialog, frame };
      }

      async function verify(txRef: string) {
        const res = await call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key });
        assert.equal(res.status, 200, res.text);
        return res.body.data;
      }

      test('the popup pays in its frame and calls onSuccess with the payment; a second one, closed, calls onClose', async () => {
        const { page, problems } = await browser.newTab();
        await page.goto(shop.origin);
        const { dialog, frame } = await openPopup(page);
        assert.equal(await dialog.getAttribute('aria-modal'), 'true');
        assert.equal(
          await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
          'Close payment',
          'focus moves into the dialog',
        );
        await assertAccessible(page, 'the shop with the popup open');
        await assertFitsEveryWidth(page, 'the shop with the popup open');
        await assertFitsEveryWidth(page, 'the checkout in the popup', () =>
          page.frames().find((framed) => framed.url().includes('/checkout/'))!,
        );

        await frame.locator('#mobile').pressSequentially('0990000000');
        await frame.locator('#pay-mobile').click();
        await page.locator('#result', { hasText: 'Paid:' }).waitFor();
        const shown = (await page.locator('#result').textContent()) ?? '';
        const [, txRef, transactionId] = /^Paid: (\S+) \(transaction (\S+)\)$/.exec(shown) ?? [];
        assert.ok(txRef, shown);
        const verified = await verify(txRef);
        assert.equal(verified.status, 'success');
        assert.equal(transactionId, verified.reference);
        assert.equal(await page.locator('[role=dialog]').count(), 0, 'the overlay closed');
        assert.equal(new URL(page.url()).pathname, '/', 'onSuccess returned false: the shop page stays');

        await openPopup(page);
        await page.click('[aria-label="Close payment"]');
        await page.locator('#result', { hasText: 'Payment window closed (closed)' }).waitFor();
        assert.equal(await page.locator('[role=dialog]').count(), 0);
        assert.equal(
          await page.evaluate(() => document.activeElement?.id),
          'pay-popup',
          'focus goes back to the button that opened it',
        );

        await openPopup(page);
        await page.keyboard.press('Escape');
        await page.locator('[role=dialog]').waitFor({ state: 'detached' });
        assert.deepEqual(problems, []);
      });

      test('when onSuccess lets it, the browser goes on to callback_url as after the hosted page', async () => {
        const { page, problems } = await browser.newTab();
        await page.goto(shop.origin);
        await page.uncheck('#stay');
        const { frame } = await openPopup(page);
        await frame.locator('#mobile').pressSequentially('0990000000');
        await frame.locator('#pay-mobile').click();
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');
        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('status'), 'success');
        assert.equal((await verify(landed.searchParams.get('tx_ref')!)).status, 'success');
        assert.deepEqual(problems, []);
      });

      test('the HTML form lands on the hosted page of a new session', async () => {
        const { page, problems } = await browser.newTab();
        await page.goto(shop.origin);
        const txRef = await page.inputValue('#form-tx-ref');
        await page.click('#pay-form-submit');
        await page.waitForURL((url) => url.origin === ctx.gw.url && url.pathname.startsWith('/checkout/'));
        await page.locator('#mobile').waitFor();
        assert.match((await page.textContent('main')) ?? '', /MWK 2,500\.00/);
        await assertFitsEveryWidth(page, "the HTML form's hosted page");
        const verified = await verify(txRef);
        assert.equal(verified.status, 'pending');
        assert.deepEqual(verified.customization, { title: 'Chikondi Crafts', description: 'Woven basket', logo: null });
        assert.deepEqual(problems, []);
      });
    });
  }
});
