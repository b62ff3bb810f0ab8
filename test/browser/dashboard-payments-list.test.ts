import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { browserSuiteOptions, useBrowser } from '../helpers/browser.ts';
import { dashboardUser, saveDashboardScreenshot, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * The payments list in headless Chromium: find a payment by its tx_ref through the search form,
 * export what the filters show through the page's own link and cookies, on a desktop and a phone.
 */
describe('the dashboard payments list in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });
      const txRefs: string[] = [];

      before(async () => {
        const key = ctx.merchant.test_secret_key;
        for (const email of ['tamanda@example.com', 'kondwani@example.com']) {
          const body = currentBody({ email, amount: 4500 });
          assert.equal((await call(ctx.gw.url, '/payment', { key, body })).status, 201);
          txRefs.push(String(body.tx_ref));
        }
        txRefs.push(
          (
            await payByMobileMoney(ctx.gw.url, key, TEST_NUMBERS.airtelSuccess, {
              email: 'chisomo@example.com',
              amount: 12_000,
            })
          ).txRef,
        );
        assert.equal(
          (
            await initializeCharge(
              ctx.gw,
              key,
              chargeBody({ mobile: TEST_NUMBERS.airtelFailed, email: 'mphatso@example.com', amount: 2500 }),
            )
          ).status,
          201,
        );
        assert.equal(
          (await initializeCharge(ctx.gw, key, chargeBody({ email: 'thoko@example.com', amount: 800 }))).status,
          201,
        );
      });

      test('find a payment by tx_ref with the search form, and export exactly the rows shown', async () => {
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id));
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await page.click('nav.sections >> text=Payments');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payments`);
        assert.equal(await page.locator('tbody tr').count(), 5, 'sessions and direct charges in one list');
        await assertAccessible(page, 'the payments list');
        await assertFitsEveryWidth(page, 'the payments list');
        await saveDashboardScreenshot(page, 'payments');

        const wanted = txRefs[0]!;
        await page.getByLabel('Search').fill(wanted);
        await Promise.all([
          page.waitForURL(/\/dashboard\/payments\?.*q=/),
          page.click('form.filters button[type=submit]'),
        ]);
        assert.equal(await page.locator('tbody tr').count(), 1);
        assert.equal(await page.locator('tbody tr a').first().textContent(), wanted);
        await assertAccessible(page, 'the payments list, searched');

        await page.getByLabel('Search').fill('');
        await page.getByLabel('Status').selectOption('pending');
        await Promise.all([page.waitForURL(/status=pending/), page.click('form.filters button[type=submit]')]);
        const shown = await page
          .locator('tbody tr a')
          .evaluateAll((links) => links.map((link) => link.getAttribute('href')!.split('/').pop()!));
        assert.equal(shown.length, 2, 'the two unpaid sessions');
        const exportUrl = new URL(
          (await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))!,
          ctx.gw.url,
        ).toString();
        assert.match(exportUrl, /\/dashboard\/payments\.csv\?status=pending$/);
        const exported = await page.request.get(exportUrl);
        assert.equal(exported.status(), 200);
        assert.match(exported.headers()['content-type'] ?? '', /^text\/csv/);
        const lines = (await exported.text()).split('\r\n').filter(Boolean);
        assert.equal(lines[0]!.split(',')[0], 'id');
        assert.deepEqual(
          lines.slice(1).map((line) => line.split(',')[0]),
          shown,
          'the export holds the rows the page shows, in its order',
        );
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('the list fits a 360 px phone', async () => {
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, 'owner', ctx.merchant.id));
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await page.goto(`${ctx.gw.url}/dashboard/payments?status=nonsense`);
        assert.match(
          (await page.locator('.warning').textContent()) ?? '',
          /status "nonsense" is not one of the list's/,
        );
        await assertAccessible(page, 'the payments list on a phone');
        await assertFitsEveryWidth(page, 'the payments list with a warning');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
