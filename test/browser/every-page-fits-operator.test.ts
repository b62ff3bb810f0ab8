import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { totpCode } from '../helpers/dashboard.ts';
import { dashboardUser, DASHBOARD_PASSWORD } from '../helpers/dashboard-pages.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { newTotpSecret } from '../../src/users/totp.ts';
import { createUser, enableTwoFactor } from '../../src/users/user-service.ts';
import { findUserByEmail } from '../../src/users/user-repository.ts';
import { dashboardPageChecks, MERCHANT_SECTIONS } from './dashboard-page-checks.ts';

/**
 * The rest of every-page-fits.test.ts, in a file of its own so that each stays well within the
 * runner's limit for a file on a slow machine: the gateway operator's pages (its own, and a
 * merchant's as the operator acting for it) and every page signed out fit 360, 768 and 1280 px
 * and pass axe at each of them.
 */
describe(
  "every operator's and signed-out dashboard page fits every width and passes axe",
  browserSuiteOptions(),
  () => {
    const browser = useBrowser();
    const ctx = useTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });
    const { check, checkMenu, signedIn } = dashboardPageChecks(browser, ctx);

    test("the operator's pages, and a merchant's as the operator acting for it", async () => {
      const page = await signedIn('operator');
      const base = ctx.gw.url;
      for (const [path, what] of [
        ['/dashboard/operator', 'the operator page'],
        ['/dashboard/operator/merchants/new', 'the new merchant form'],
        [`/dashboard/operator/merchants/${ctx.merchant.id}`, "a merchant's operator page"],
      ] as const) {
        await page.goto(`${base}${path}`);
        await check(page, what);
      }
      await page.goto(`${base}/dashboard/operator`);
      await checkMenu(page, 'the operator page', ['Operator']);

      // A payment, so that the merchant acted for shows a list rather than its empty state.
      await payByMobileMoney(base, ctx.merchant.test_secret_key, TEST_NUMBERS.airtelSuccess);
      await page.goto(`${base}/dashboard/operator/merchants/${ctx.merchant.id}`);
      await submitForm(page, 'main button:text("Act for")');
      await page.waitForURL(`${base}/dashboard`);
      for (const [path, what] of [
        ['/dashboard', 'the overview of the merchant acted for'],
        ['/dashboard/payments', 'the payments of the merchant acted for'],
        ['/dashboard/settings', 'the settings of the merchant acted for'],
      ] as const) {
        await page.goto(`${base}${path}`);
        await check(page, what);
      }
      await checkMenu(page, 'a page of the merchant acted for', [...MERCHANT_SECTIONS, 'Operator']);
      await page.goto(`${base}/dashboard/operator/merchants/new`);
      await page.getByLabel('Business name').fill('Kumudzi Market and Crafts of Lilongwe');
      await page.getByLabel('Email').fill('accounts.payable@kumudzi-market-and-crafts.example.com');
      const created = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.click('main button[type=submit]');
      assert.equal((await created).status(), 201);
      await page.waitForLoadState();
      await check(page, 'the new merchant with its keys');
    });

    test('the signed-out pages: sign-in, its code step, setting a password, an unusable link, an expired form', async () => {
      const { gw, merchant } = ctx;
      const db = gw.gateway.database.db;
      const { page } = await browser.newTab({ width: 1280, height: 800 });
      await page.goto(`${gw.url}/dashboard/login`);
      await check(page, 'the sign-in page');
      await page.getByLabel('Email').fill('nobody@example.com');
      await page.getByLabel('Password').fill('not the password');
      await page.click('button[type=submit]');
      await page.locator('[role=alert]').waitFor();
      await check(page, 'the sign-in page with its error');

      await page.getByLabel('Password').fill('not the password');
      await page.evaluate(() => {
        document.querySelector<HTMLInputElement>('input[name=csrf]')!.value = 'not the token';
      });
      const refused = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.click('button[type=submit]');
      assert.equal((await refused).status(), 403);
      await page.locator('h1', { hasText: 'This form has expired' }).waitFor();
      await check(page, 'the expired form page');

      const { link } = await createUser(
        db,
        { publicBaseUrl: gw.url },
        {
          merchantId: merchant.id,
          email: 'mphatso.kachingwe-phiri@kumudzi-market-and-crafts.example.com',
          role: 'viewer',
        },
        gw.gateway.clock.now(),
      );
      await page.goto(link!);
      await check(page, 'the set-password page');
      await page.goto(`${gw.url}/dashboard/forgot-password`);
      await check(page, 'the forgotten password page');
      await page.getByLabel('Email').fill('mphatso.kachingwe-phiri@kumudzi-market-and-crafts.example.com');
      await submitForm(page, 'main button[type=submit]');
      await page.locator('h1', { hasText: 'Check your email' }).waitFor();
      await check(page, 'the page answering a forgotten password');
      await page.goto(`${gw.url}/dashboard/set-password?token=nothing-like-a-token`);
      await check(page, 'the page of a link that no longer works');

      const email = await dashboardUser(gw, 'developer', merchant.id);
      const secret = newTotpSecret();
      assert.ok(
        await enableTwoFactor(
          db,
          (await findUserByEmail(db, email))!,
          secret,
          totpCode(secret),
          gw.gateway.clock.now(),
        ),
      );
      await page.goto(`${gw.url}/dashboard/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
      await submitForm(page, 'button[type=submit]');
      await page.getByLabel('Code', { exact: true }).waitFor();
      await check(page, 'the code step of sign-in');
    });
  },
);
