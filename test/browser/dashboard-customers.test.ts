import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { browserSuiteOptions, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS, TNM_REF, verify } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';

/**
 * The payments search and the customers pages in headless Chromium, as a merchant's viewer uses
 * them: search from the list's form, open Customers from the menu, search them, open a customer
 * and one of their payments. Each page passes axe and fits 360, 768 and 1280 px.
 */
describe('the payments search and the customers pages in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });

      before(async () => {
        const key = ctx.merchant.test_secret_key;
        const customers = [
          { first_name: 'Chikondi', last_name: 'Banda', email: 'chikondi.banda@example.com', amount: 12_500 },
          { first_name: 'Tamanda', last_name: 'Phiri', email: 'tamanda.phiri@example.com', amount: 4_000 },
          { first_name: 'Chikondi', last_name: 'Banda', email: 'chikondi.banda@example.com', amount: 2_750 },
          {
            first_name: 'Kondwani',
            last_name: 'Mwale-Banda',
            email: 'kondwani.mwale-banda.accounts.payable@kumudzi-market-and-crafts.example.com',
            amount: 125_000,
          },
        ];
        for (const [index, customer] of customers.entries())
          await payByMobileMoney(ctx.gw.url, key, TEST_NUMBERS.airtelSuccess, {
            tx_ref: `order-10${index}`,
            ...customer,
          });
        assert.equal(
          (await call(ctx.gw.url, '/payment', { key, body: currentBody({ tx_ref: 'order-200', last_name: 'Banda' }) }))
            .status,
          201,
        );
        const direct = chargeBody({
          mobile: TEST_NUMBERS.tnmSuccess,
          mobile_money_operator_ref_id: TNM_REF,
          email: undefined,
          first_name: 'Grace',
          last_name: 'Banda',
          amount: 800,
        });
        assert.equal((await initializeCharge(ctx.gw, key, direct)).status, 201);
        await verify(ctx.gw, key, String(direct.charge_id), 'success');
      });

      test('search the payments, then find a customer and their payments', async () => {
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id));
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await page.click('nav.sections >> text=Payments');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payments`);
        await page.getByLabel('Search').fill('BANDA');
        await Promise.all([
          page.waitForURL(/\/dashboard\/payments\?.*q=BANDA/),
          page.click('form.filters button[type=submit]'),
        ]);
        assert.equal(
          await page.locator('tbody tr').count(),
          5,
          'four of the five with Banda in a name, the unpaid one too',
        );
        await checkDashboardPage(page, 'the payments list searched by name', 'payments-search');

        await page.getByLabel('Search').fill('+265 89 981 7565');
        await Promise.all([page.waitForURL(/q=%2B265/), page.click('form.filters button[type=submit]')]);
        assert.equal(await page.locator('tbody tr').count(), 1, 'the number in another form');
        assert.match((await page.locator('tbody tr').textContent()) ?? '', /\+265899xxxx65/);

        await page.click('nav.sections >> text=Customers');
        await page.waitForURL(`${ctx.gw.url}/dashboard/customers`);
        const names = await page.locator('tbody tr td:first-child').allTextContents();
        assert.deepEqual(names, [
          '0899xxxx65',
          'kondwani.mwale-banda.accounts.payable@kumudzi-market-and-crafts.example.com',
          'chikondi.banda@example.com',
          'tamanda.phiri@example.com',
        ]);
        await checkDashboardPage(page, 'the customers page', 'customers');

        await page.getByLabel('Search').fill('phiri');
        await Promise.all([
          page.waitForURL(/\/dashboard\/customers\?q=phiri/),
          page.click('form.filters button[type=submit]'),
        ]);
        assert.deepEqual(await page.locator('tbody tr td:first-child').allTextContents(), [
          'tamanda.phiri@example.com',
        ]);
        await checkDashboardPage(page, 'the customers page searched');

        await page.getByLabel('Search').fill('');
        await Promise.all([
          page.waitForURL(/\/dashboard\/customers\?q=$/),
          page.click('form.filters button[type=submit]'),
        ]);
        await page.click('text=chikondi.banda@example.com');
        await page.waitForURL(`${ctx.gw.url}/dashboard/customers/chikondi.banda%40example.com`);
        assert.match(
          (await page.locator('dl.facts').textContent()) ?? '',
          /Successful payments2\s+Total paidMWK 15,250\.00/,
        );
        assert.equal(await page.locator('tbody tr').count(), 2);
        await checkDashboardPage(page, "a customer's page", 'customer');

        await page.locator('tbody tr a').first().click();
        await page.waitForURL(/\/dashboard\/payments\/[^/]+$/);
        assert.match((await page.locator('h1').textContent()) ?? '', /order-102/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
