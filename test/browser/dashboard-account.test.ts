import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import {
  checkDashboardPage,
  dashboardUser,
  saveDashboardScreenshot,
  signInPage,
  openHeaderMenu,
} from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * The account page and an owner's reset of a member in headless Chromium, through the real CSP and
 * cookies, on a 360 px phone: a member signs in twice (the history lists this browser), opens
 * their account from the header; the owner goes from the team list to the confirmation page of a
 * password reset and confirms it. axe finds nothing, each page fits 360, 768 and 1280 px, and
 * (with LIPIRA_DASHBOARD_SCREENSHOTS=1) the phone pages are saved for the docs.
 */
describe('the account page and a member reset in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind);

      test('a member’s account page lists their sign-ins, this browser marked', async () => {
        const { gw, merchant } = ctx;
        const email = await dashboardUser(gw, 'developer', merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        for (let time = 0; time < 2; time++) {
          await signInPage(page, gw.url, email);
          await page.waitForURL(`${gw.url}/dashboard`);
          await openHeaderMenu(page);
          await submitForm(page, 'header button:text("Sign out")');
        }
        await signInPage(page, gw.url, email);
        await page.waitForURL(`${gw.url}/dashboard`);
        await openHeaderMenu(page);
        await page.click('header a:text("Your account")');
        await page.waitForURL(`${gw.url}/dashboard/account`);
        const rows = page.locator('main table tbody tr');
        assert.equal(await rows.count(), 3);
        assert.match((await rows.first().textContent()) ?? '', /CAT127\.0\.0\.1Chrome on Linux \(this browser\)$/);
        await assertAccessible(page, 'the account page on a phone');
        await saveDashboardScreenshot(page, 'account-phone');
        await assertFitsEveryWidth(page, 'the account page');
        await page.setViewportSize({ width: 1280, height: 800 });
        await assertAccessible(page, 'the account page');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('an owner opens the confirmation of a member’s password reset from the team list, and confirms it', async () => {
        const { gw, merchant } = ctx;
        const memberEmail = await dashboardUser(gw, 'viewer', merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await signInPage(page, gw.url, await dashboardUser(gw, 'owner', merchant.id));
        await page.waitForURL(`${gw.url}/dashboard`);
        await page.goto(`${gw.url}/dashboard/settings`);
        await checkDashboardPage(page, 'the settings page with the reset links');
        await page.setViewportSize({ width: 360, height: 740 });
        await page.getByRole('link', { name: `Reset password of ${memberEmail}` }).click();
        await page.waitForURL(/\/dashboard\/settings\/team\/usr_\w+\/reset-password$/);
        assert.equal(await page.locator('h1').textContent(), `Reset the password of ${memberEmail}?`);
        await assertAccessible(page, 'the password reset confirmation on a phone');
        await saveDashboardScreenshot(page, 'reset-password-confirm-phone');
        await assertFitsEveryWidth(page, 'the password reset confirmation');
        await submitForm(page, 'main button:text("Reset the password")');
        await page.waitForURL(`${gw.url}/dashboard/settings?done=password_reset`);
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /The password is reset/);
        assert.match((await page.locator('main tr', { hasText: memberEmail }).textContent()) ?? '', /no password yet/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
