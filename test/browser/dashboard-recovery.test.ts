import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { totpCode } from '../helpers/dashboard.ts';
import { dashboardUser, saveDashboardScreenshot, signInPage, openHeaderMenu } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

const NEW_PASSWORD = 'a brand new long passphrase';
const LINK = /http:\/\/\S+\/dashboard\/set-password\?token=[A-Za-z0-9_-]{43}/;

/** axe finds nothing and the page fits 360, 768 and 1280 px; the tab is left at the phone's width. */
async function checkPage(page: Page, what: string, screenshot: string | null = null): Promise<void> {
  await assertAccessible(page, what);
  if (screenshot) await saveDashboardScreenshot(page, screenshot);
  await assertFitsEveryWidth(page, what);
}

/** Posts the form behind `button` when the answer is the page itself (shown once), not a redirect. */
async function submitForPage(page: Page, button: string): Promise<void> {
  const answered = page.waitForResponse((response) => response.request().method() === 'POST');
  await page.click(button);
  assert.equal((await answered).status(), 200);
  await page.waitForLoadState();
}

/**
 * Getting back into an account in headless Chromium on a 360 px phone, through the real CSP:
 * a forgotten password reset from the emailed link, and a sign-in with a recovery code saved at
 * two-factor enrolment (downloaded and copied, with the dashboard's script; listed without it).
 */
describe('getting back into a dashboard account in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind);
      const db = () => ctx.gw.gateway.database.db;

      /** Turns two-factor sign-in on from the signed-in tab's settings; its secret, with the codes page showing. */
      async function turnOnTwoFactor(page: Page): Promise<string> {
        await page.goto(`${ctx.gw.url}/dashboard/settings/two-factor`);
        const secret = (await page.locator('.secret').textContent())!;
        await page.getByLabel('Code from the app').fill(totpCode(secret));
        await submitForPage(page, 'main button[type=submit]');
        assert.equal(await page.title(), 'Your recovery codes · Lipira dashboard');
        return secret;
      }

      const shownCodes = async (page: Page) => page.locator('ol.codes li code').allTextContents();

      test('forgot password: ask for a link, choose a new password from the email, and sign in with it', async () => {
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await page.goto(`${ctx.gw.url}/dashboard/login`);
        await page.click('text=Forgot your password?');
        await page.waitForURL(`${ctx.gw.url}/dashboard/forgot-password`);
        await checkPage(page, 'the forgot-password page', 'forgot-password-phone');
        await page.getByLabel('Email').fill(email);
        await submitForm(page, 'main button[type=submit]');
        await page.waitForURL(/\/dashboard\/forgot-password\?sent=1$/);
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /an email with a link/);
        await checkPage(page, 'the page after asking for a link');

        const mail = await eventually('the reset email', () =>
          db()
            .selectFrom('emails')
            .select('text_body')
            .where('recipient', '=', email)
            .where('kind', '=', 'password_reset')
            .executeTakeFirst(),
        );
        await page.goto(LINK.exec(mail.text_body)![0]);
        assert.equal(await page.title(), 'Choose a new password · Lipira dashboard');
        await checkPage(page, 'the choose-a-new-password page', 'reset-password-phone');
        await page.getByLabel('New password').fill(NEW_PASSWORD);
        await page.getByLabel('The same password again').fill(NEW_PASSWORD);
        await submitForm(page, 'main button[type=submit]');
        await page.waitForURL(/\/dashboard\/login\?password_set=1$/);
        await signInPage(page, ctx.gw.url, email, NEW_PASSWORD);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('recovery codes: shown once at enrolment, downloaded and copied, then one signs in in place of a code', async () => {
        const email = await dashboardUser(ctx.gw, 'developer', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.gw.url });
        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await turnOnTwoFactor(page);
        const codes = await shownCodes(page);
        assert.equal(codes.length, 10);
        await checkPage(page, 'the recovery codes page', 'recovery-codes-phone');

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.click('text=Download as a text file'),
        ]);
        assert.equal(download.suggestedFilename(), 'lipira-recovery-codes.txt');
        const file = fs.readFileSync((await download.path())!, 'utf8');
        assert.ok(
          codes.every((code) => file.includes(`\n${code}\n`)),
          'the file holds every code, one a line',
        );
        const copy = page.getByRole('button', { name: 'Copy the codes' });
        assert.ok(await copy.isVisible(), 'the script shows the copy button');
        await copy.click();
        await page.waitForSelector('#copied:text("Copied the codes.")');
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), codes.join('\n'));

        await page.click('text=I have saved my codes');
        await page.waitForURL(`${ctx.gw.url}/dashboard/settings/two-factor`);
        assert.match((await page.locator('main').textContent()) ?? '', /10 of 10 recovery codes are left/);
        await openHeaderMenu(page);
        await submitForm(page, 'header button:text("Sign out")');

        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard/login`);
        assert.match((await page.locator('main').textContent()) ?? '', /Or use a recovery code/);
        await checkPage(page, 'the code step with its recovery code form', 'login-recovery-code-phone');
        await page.getByLabel('Recovery code').fill(codes[0]!);
        await submitForm(page, 'button:text("Sign in with a recovery code")');
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await page.goto(`${ctx.gw.url}/dashboard/settings/two-factor`);
        assert.match((await page.locator('main').textContent()) ?? '', /9 of 10 recovery codes are left/);
        await checkPage(page, 'the two-factor page with a code used', 'two-factor-codes-left-phone');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('without JavaScript the codes are listed and download; the copy button, which needs a script, stays hidden', async () => {
        const email = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 }, { javaScriptEnabled: false });
        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await turnOnTwoFactor(page);
        assert.equal((await shownCodes(page)).length, 10);
        assert.equal(await page.getByRole('button', { name: 'Copy the codes' }).isVisible(), false);
        assert.ok(await page.locator('a[download="lipira-recovery-codes.txt"]').isVisible());
        await assertFitsEveryWidth(page, 'the recovery codes page without JavaScript');
        assert.deepEqual(problems, []);
      });
    });
  }
});
