import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ViewportSize } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { assertAccessible } from './axe.ts';
import { assertFits } from './layout.ts';

/**
 * A payment link as a customer meets it in Chromium: the link's page, continuing to the hosted
 * checkout, paying with the sandbox's mobile money number, and the pages of a link that cannot be
 * paid. The page and the ones after are axe clean and fit a phone and a desktop.
 */
const PHONE: ViewportSize = { width: 360, height: 740 };
const DESKTOP: ViewportSize = { width: 1280, height: 800 };

describe('payment links in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '200ms', WORKER_INTERVAL: '100ms' });

      async function newLink(body: Record<string, unknown>): Promise<{ id: string; url: string }> {
        const created = await call(ctx.gw.url, '/payment-links', {
          key: ctx.merchant.test_secret_key,
          body: { currency: 'MWK', title: 'Chitenje fabric, 2 m', ...body },
        });
        assert.equal(created.status, 201, created.text);
        return created.body.data;
      }

      /** Axe clean and no sideways scroll on a phone and a desktop. */
      async function checkAtBothWidths(page: import('playwright-core').Page, what: string): Promise<void> {
        for (const viewport of [PHONE, DESKTOP]) {
          await page.setViewportSize(viewport);
          await assertFits(page, `${what} at ${viewport.width} px`);
          await assertAccessible(page, `${what} at ${viewport.width} px`);
        }
      }

      async function payOnCheckout(page: import('playwright-core').Page): Promise<void> {
        await page.locator('#mobile').waitFor();
        await page.fill('#mobile', TEST_NUMBERS.airtelSuccess);
        await submitForm(page, '#pay-mobile');
        await page.locator('#receipt').waitFor();
      }

      test('a fixed amount with a required name: refused empty, then paid end to end', async () => {
        const link = await newLink({
          amount: 2500,
          description: 'Wax print, from the shop at Lilongwe market',
          customer_fields: { name: 'required', phone: 'optional' },
        });
        const { page, problems } = await browser.newTab(PHONE);
        await page.goto(link.url);
        assert.equal(await page.textContent('h1'), 'Chitenje fabric, 2 m');
        assert.match((await page.textContent('.amount')) ?? '', /MWK 2,500\.00/);
        await checkAtBothWidths(page, "a fixed link's page");
        await page.setViewportSize(PHONE);

        // The browser's own check stops an empty required name; the page's check is what a browser without one meets.
        await page.locator('#name').evaluate((input) => input.removeAttribute('required'));
        const refused = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.click('#continue');
        assert.equal((await refused).status(), 422);
        assert.equal(await page.textContent('#name-error'), 'Enter your name.');
        assert.equal(await page.getAttribute('#name', 'aria-invalid'), 'true');
        await assertAccessible(page, 'the page with a refused detail');

        await page.fill('#name', 'Chisomo Banda');
        await submitForm(page, '#continue');
        await payOnCheckout(page);
        const read = await call(ctx.gw.url, `/payment-links/${link.id}`, { key: ctx.merchant.test_secret_key });
        assert.deepEqual([read.body.data.payments_count, read.body.data.amount_collected], [1, 2500]);
        // Chromium reports the refusal's 422 as a failed load: the one console line expected here.
        assert.deepEqual(
          problems.filter((problem) => !problem.includes('status of 422')),
          [],
        );
      });

      test('an amount the customer chooses, above the minimum, paid end to end', async () => {
        const link = await newLink({ title: 'Donation to the choir', min_amount: 500 });
        const { page, problems } = await browser.newTab(PHONE);
        await page.goto(link.url);
        assert.match((await page.textContent('#amount-hint')) ?? '', /At least MWK 500\.00/);
        await checkAtBothWidths(page, "a chosen-amount link's page");
        await page.fill('#amount', '1200');
        await submitForm(page, '#continue');
        await page.locator('.amount').first().waitFor();
        assert.match((await page.textContent('.amount')) ?? '', /MWK 1,200\.00/);
        await payOnCheckout(page);
        const read = await call(ctx.gw.url, `/payment-links/${link.id}`, { key: ctx.merchant.test_secret_key });
        assert.equal(read.body.data.amount_collected, 1200);
        assert.deepEqual(problems, []);
      });

      test('a single-use link being paid: the next customer is told before paying, then told it was paid', async () => {
        const link = await newLink({ amount: 300, reusable: false });
        const first = await browser.newTab(PHONE);
        await first.page.goto(link.url);
        await submitForm(first.page, '#continue');
        await first.page.locator('#mobile').waitFor();

        const second = await browser.newTab(PHONE);
        await second.page.goto(link.url);
        const refused = second.page.waitForResponse((response) => response.request().method() === 'POST');
        await second.page.click('#continue');
        assert.equal((await refused).status(), 409);
        assert.equal(await second.page.textContent('h1'), 'This payment link is not available right now');
        await checkAtBothWidths(second.page, 'a held link');

        await payOnCheckout(first.page);
        const answer = await second.page.goto(link.url);
        assert.equal(answer?.status(), 410);
        assert.equal(await second.page.textContent('h1'), 'This payment link has already been paid');
        await checkAtBothWidths(second.page, 'a used-up link');
      });

      test('expired and deactivated links say so, in the merchant brand', async () => {
        const expiring = await newLink({ amount: 100, expires_at: new Date(Date.now() + 1000).toISOString() });
        const off = await newLink({ amount: 100 });
        await call(ctx.gw.url, `/payment-links/${off.id}`, {
          key: ctx.merchant.test_secret_key,
          method: 'PATCH',
          body: { active: false },
        });
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const { page } = await browser.newTab(PHONE);
        for (const [link, heading] of [
          [expiring, 'This payment link has expired'],
          [off, 'This payment link is not active'],
        ] as const) {
          const answer = await page.goto(link.url);
          assert.equal(answer?.status(), 410);
          assert.equal(await page.textContent('h1'), heading);
          assert.equal(await page.textContent('.merchant-name'), 'Test Shop');
          assert.equal(await page.locator('form').count(), 0, 'nothing to continue with');
          await checkAtBothWidths(page, heading);
        }
      });
    });
  }
});
