import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { totpCode } from '../helpers/dashboard.ts';
import { saveDashboardScreenshot, signInPage as signIn } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { createUser } from '../../src/users/user-service.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

const PASSWORD = 'correct horse battery staple';

/**
 * The dashboard's sign-in in headless Chromium, through its real CSP and cookies: a new user sets
 * a password from the emailed link, signs in, turns on two-factor sign-in with the key the page
 * shows (the code computed here as an authenticator app would), and signs in again with a code.
 * axe checks every page; each is laid out for a 360 px phone.
 */
describe('the dashboard sign-in in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind);
      let users = 0;

      test('a user with a password signs in without a code, sees the home page, and signs out', async () => {
        const email = `owner${++users}@example.com`;
        await createUser(
          ctx.gw.gateway.database.db,
          { publicBaseUrl: ctx.gw.url },
          { merchantId: ctx.merchant.id, email, role: 'owner', password: PASSWORD },
          ctx.gw.gateway.clock.now(),
        );
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await signIn(page, ctx.gw.url, email, PASSWORD);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        assert.match(
          (await page.locator('main').textContent()) ?? '',
          new RegExp(`Signed in as ${email} \\(owner\\) for Test Shop`),
        );
        await assertAccessible(page, 'the home page');
        await assertFitsEveryWidth(page, 'the home page');
        await submitForm(page, 'main button:text("Sign out")');
        await page.waitForURL(/\/dashboard\/login\?signed_out=1$/);
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /You are signed out/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('set a password from the link, turn on two-factor sign-in, and sign in with a code', async () => {
        const email = `developer${++users}@example.com`;
        const { link } = await createUser(
          ctx.gw.gateway.database.db,
          { publicBaseUrl: ctx.gw.url },
          { merchantId: ctx.merchant.id, email, role: 'developer' },
          ctx.gw.gateway.clock.now(),
        );
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await page.goto(link!);
        assert.equal(await page.title(), 'Set your password · Lipira dashboard');
        await assertAccessible(page, 'the set-password page');
        await saveDashboardScreenshot(page, 'set-password-phone');
        await assertFitsEveryWidth(page, 'the set-password page');
        await page.getByLabel('New password').fill(PASSWORD);
        await page.getByLabel('The same password again').fill(PASSWORD);
        await submitForm(page, 'button[type=submit]');
        await page.waitForURL(/\/dashboard\/login\?password_set=1$/);
        await assertAccessible(page, 'the sign-in page');
        await assertFitsEveryWidth(page, 'the sign-in page');

        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await submitForm(page, 'button[type=submit]');
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        // On a phone the account's links are behind the header's Menu button.
        await page.click('header summary:text("Menu")');
        await page.click('header a:text("Your account")');
        await page.click('main a:text("Turn it on")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/settings/two-factor`);
        await assertAccessible(page, 'the two-factor enrolment page');
        await assertFitsEveryWidth(page, 'the two-factor enrolment page');
        await saveDashboardScreenshot(page, 'two-factor-phone');
        assert.ok(
          await page.locator('img.qr').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0),
          'the QR code is drawn',
        );
        const secret = (await page.locator('.secret').textContent())!;
        await page.getByLabel('Code from the app').fill(totpCode(secret));
        const codes = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.click('main button[type=submit]');
        assert.equal((await codes).status(), 200, 'the answer shows the recovery codes, once');
        assert.match((await page.locator('main').textContent()) ?? '', /Two-factor sign-in is on/);
        await page.click('text=I have saved my codes');
        await page.waitForURL(`${ctx.gw.url}/dashboard/settings/two-factor`);
        await assertAccessible(page, 'the two-factor page once it is on');
        await assertFitsEveryWidth(page, 'the two-factor page once it is on');
        await saveDashboardScreenshot(page, 'two-factor-on-phone');
        await page.click('header summary:text("Menu")');
        await submitForm(page, 'header button:text("Sign out")');

        await signIn(page, ctx.gw.url, email, PASSWORD);
        await page.waitForURL(`${ctx.gw.url}/dashboard/login`);
        await assertAccessible(page, 'the code step of sign-in');
        await assertFitsEveryWidth(page, 'the code step of sign-in');
        await saveDashboardScreenshot(page, 'login-code-phone');
        await page.getByLabel('Code', { exact: true }).fill(totpCode(secret, 1));
        await submitForm(page, 'button:text("Continue")');
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        assert.match((await page.locator('main').textContent()) ?? '', /\(developer\) for Test Shop/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('five wrong passwords lock the account: the right one is then refused with the same words', async () => {
        const email = `viewer${++users}@example.com`;
        await createUser(
          ctx.gw.gateway.database.db,
          { publicBaseUrl: ctx.gw.url },
          { merchantId: ctx.merchant.id, email, role: 'viewer', password: PASSWORD },
          ctx.gw.gateway.clock.now(),
        );
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        /** Types the address and a password on the sign-in page and submits it; the status it was answered with. */
        const tryPassword = async (password: string) => {
          await page.getByLabel('Email').fill(email);
          await page.getByLabel('Password').fill(password);
          const answered = page.waitForResponse((response) => response.request().method() === 'POST');
          await page.click('button[type=submit]');
          return (await answered).status();
        };
        await page.goto(`${ctx.gw.url}/dashboard/login`);
        for (let attempt = 1; attempt <= 5; attempt++)
          assert.equal(await tryPassword(`not the password ${attempt}`), 401);
        await page.waitForSelector('[role=alert]');
        assert.match((await page.locator('[role=alert]').textContent()) ?? '', /wrong, or the account is locked/);
        assert.equal(await page.getByLabel('Email').inputValue(), email, 'the address typed is kept');
        await assertAccessible(page, 'the sign-in page with its error');
        await assertFitsEveryWidth(page, 'the sign-in page with its error');
        await saveDashboardScreenshot(page, 'login-refused');
        assert.equal(await tryPassword(PASSWORD), 401, 'the right password is refused while the account is locked');
        await page.waitForSelector('[role=alert]');
        assert.equal(new URL(page.url()).pathname, '/dashboard/login');
        assert.match((await page.locator('[role=alert]').textContent()) ?? '', /locked for a while/);
        // Chromium reports each refused sign-in's own 401 document as a failed load: that is the answer under test.
        assert.deepEqual(
          problems.filter((problem) => !/status of 401/.test(problem)),
          [],
          'no other console error, and no CSP violation',
        );
      });
    });
  }
});
