import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS, verify } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * The operator's pages and the overview in headless Chromium, through the real CSP: the operator
 * signs in, creates a merchant with the form, finds it in the list, acts for it and lands on its
 * overview; a merchant owner sees the overview with its chart. axe checks every page, each fits a
 * 360 px phone, and (with LIPIRA_DASHBOARD_SCREENSHOTS=1) the desktop pages are saved for the docs.
 */
describe('the operator pages and the overview in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind);

      test('the operator creates a merchant through the form, finds it in the list, acts for it and sees its overview', async () => {
        const { gw } = ctx;
        const { page, problems } = await browser.newTab();
        await signInPage(page, gw.url, await dashboardUser(gw, 'operator'));
        await page.waitForURL(`${gw.url}/dashboard/operator`);
        await checkDashboardPage(page, 'the operator page');

        await page.click('text=Create a merchant');
        await page.waitForURL(`${gw.url}/dashboard/operator/merchants/new`);
        await checkDashboardPage(page, 'the new merchant form', 'operator-new-merchant');
        await page.getByLabel('Business name').fill('Mphatso Foods');
        await page.getByLabel('Email').fill('foods@example.com');
        await page.getByLabel('Webhook URL').fill('https://foods.example/hooks');
        await page.getByLabel('Fee (%)').fill('2.5');
        const answered = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.click('main button[type=submit]');
        assert.equal((await answered).status(), 201);
        await page.waitForLoadState();
        assert.match((await page.locator('h1').textContent()) ?? '', /Mphatso Foods is created/);
        assert.match((await page.locator('.secret').first().textContent()) ?? '', /^sec-test-/);
        await checkDashboardPage(page, 'the merchant created page', 'operator-merchant-created');

        await page.click('text=All merchants');
        await page.waitForURL(`${gw.url}/dashboard/operator`);
        const row = page.locator('tr', { hasText: 'Mphatso Foods' });
        assert.match((await row.textContent()) ?? '', /foods@example\.com.*2\.5 %/);
        await checkDashboardPage(page, 'the operator page with the new merchant', 'operator');

        await row.locator('a', { hasText: 'Mphatso Foods' }).click();
        await page.waitForURL(/\/dashboard\/operator\/merchants\/mer_/);
        await page.getByLabel('Email').fill('owner@foods.example');
        await page.getByLabel('Role').selectOption('owner');
        await submitForm(page, 'main button:text("Add the user")');
        assert.match(
          (await page.locator('main table').textContent()) ?? '',
          /owner@foods\.example\s*owner\s*link sent, not used yet/,
        );
        await checkDashboardPage(page, "the merchant's operator page", 'operator-merchant');
        await page.getByLabel('Fee (%)').fill('2');
        await submitForm(page, 'main button:text("Save the fee")');
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /The fee is saved/);

        await submitForm(page, 'main button:text("Act for Mphatso Foods")');
        await page.waitForURL(`${gw.url}/dashboard`);
        assert.match((await page.locator('main').textContent()) ?? '', /\(operator\) for Mphatso Foods/);
        assert.equal(await page.locator('.whose').textContent(), 'Mphatso Foods');
        await checkDashboardPage(page, 'the overview of the merchant acted for');
        await submitForm(page, 'main button:text("Stop acting")');
        await page.waitForURL(/\/dashboard\/operator\?stopped=1$/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test("a merchant owner's overview: balances, figures, the volume chart and its numbers, the recent payments", async () => {
        const { gw, merchant } = ctx;
        for (const [amount, outcome] of [
          [12_500, 'success'],
          [4_000, 'success'],
          [2_000, 'failed'],
        ] as const) {
          const body = chargeBody({
            amount,
            mobile: outcome === 'success' ? TEST_NUMBERS.airtelSuccess : TEST_NUMBERS.airtelFailed,
          });
          assert.equal((await initializeCharge(gw, merchant.test_secret_key, body)).status, 201);
          await verify(gw, merchant.test_secret_key, String(body.charge_id), outcome);
        }
        await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, { amount: 7_250 });
        const { page, problems } = await browser.newTab();
        await signInPage(page, gw.url, await dashboardUser(gw, 'owner', merchant.id));
        await page.waitForURL(`${gw.url}/dashboard`);
        const chart = page.locator('svg[role=img]');
        assert.ok(await chart.isVisible(), 'the chart is drawn');
        assert.equal(await chart.getAttribute('aria-labelledby'), 'volume-chart-title volume-chart-summary');
        assert.equal(await page.locator('svg rect.bar').count(), 30);
        assert.ok((await page.locator('svg rect.bar').last().boundingBox())!.height > 0, "today's bar has a height");
        assert.match((await page.locator('figcaption').textContent()) ?? '', /^MWK 23,750\.00 from /);
        assert.match((await page.locator('main').textContent()) ?? '', /3 of 4 succeeded, 1 failed\./);
        assert.equal(await page.locator('main table').last().locator('tbody tr').count(), 4, 'the recent payments');
        await checkDashboardPage(page, 'the overview', 'overview');
        await page.click('text=Show the numbers');
        assert.ok(await page.locator('.chart-numbers table').isVisible());
        assert.match(
          (await page.locator('.chart-numbers tbody tr').first().textContent()) ?? '',
          /MWK 23,750\.00/,
          "today's volume first",
        );
        await assertAccessible(page, 'the overview with the numbers of the chart open');
        await assertFitsEveryWidth(page, 'the overview with the numbers of the chart open');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
