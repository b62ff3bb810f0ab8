import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite } from '../helpers/browser.ts';
import { cardBody, chargeCard } from '../helpers/cards.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { assertAccessible } from './axe.ts';
import { assertFits, assertFitsEveryWidth } from './layout.ts';

/**
 * A direct card charge's 3-D Secure page in headless Chromium: the merchant's server starts the
 * charge, the customer's browser opens the link, types the code, and lands back on the
 * merchant's own page (a real loopback server), through the page's CSP and form-action.
 */
describe('the 3-D Secure page in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const shop = useMerchantSite();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind);

      test('POST /charge-card/payments, open 3ds_auth_link, enter 1234: the browser lands on redirect_url with charge_id and status=success', async () => {
        const body = cardBody({ redirect_url: `${shop.origin}/card-paid?order=9` });
        const started = await chargeCard(ctx.gw, ctx.merchant.test_secret_key, body);
        assert.equal(started.status, 200, started.text);
        const { page, problems } = await browser.newTab();
        await page.goto(started.body['3ds_auth_link']);
        assert.equal(await page.title(), 'Confirm your card payment');
        assert.match((await page.locator('#otp-card').textContent()) ?? '', /4242$/);
        await assertAccessible(page, 'the 3-D Secure page');
        await assertFitsEveryWidth(page, 'the 3-D Secure page');

        await page.fill('#otp', '9999');
        const wrong = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.click('#submit-otp');
        assert.equal((await wrong).status(), 422);
        assert.match((await page.locator('.error[role=alert]').textContent()) ?? '', /2 tries left/);
        await assertAccessible(page, 'the 3-D Secure page after a wrong code');
        await assertFitsEveryWidth(page, 'the 3-D Secure page after a wrong code');

        await page.fill('#otp', '1234');
        await submitForm(page, '#submit-otp');
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/card-paid');
        const landed = new URL(page.url());
        assert.deepEqual(Object.fromEntries(landed.searchParams), {
          order: '9',
          charge_id: body.charge_id,
          status: 'success',
        });
        // Chromium reports the wrong code's 422 as a failed load: that one is expected.
        assert.deepEqual(
          problems.filter((problem) => !problem.includes('status of 422')),
          [],
          'no console error or CSP violation',
        );
      });

      test('a small phone screen and no JavaScript: the code is still asked and accepted', async () => {
        const body = cardBody({ redirect_url: `${shop.origin}/card-paid` });
        const started = await chargeCard(ctx.gw, ctx.merchant.test_secret_key, body);
        const { page, problems } = await browser.newTab({ width: 320, height: 640 }, { javaScriptEnabled: false });
        await page.goto(started.body['3ds_auth_link']);
        await assertFits(page, 'the 3-D Secure page without JavaScript at 320 px');
        await assertFitsEveryWidth(page, 'the 3-D Secure page without JavaScript');
        await page.fill('#otp', '1234');
        await submitForm(page, '#submit-otp');
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/card-paid');
        assert.equal(new URL(page.url()).searchParams.get('status'), 'success');
        assert.deepEqual(problems, []);
      });
    });
  }
});
