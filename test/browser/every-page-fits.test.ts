import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { totpCode } from '../helpers/dashboard.ts';
import { dashboardUser, DASHBOARD_PASSWORD, signInPage } from '../helpers/dashboard-pages.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import {
  chargeBody,
  eventually,
  fundMainBalance,
  initializeCharge,
  initializePayout,
  payoutBody,
  TEST_NUMBERS,
  verify,
} from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { newTotpSecret } from '../../src/users/totp.ts';
import { createUser, enableTwoFactor } from '../../src/users/user-service.ts';
import { findUserByEmail } from '../../src/users/user-repository.ts';
import { assertAccessible } from './axe.ts';
import { assertFits, CHECKED_WIDTHS } from './layout.ts';

/**
 * Every dashboard page, as a merchant's owner, a viewer and the gateway's operator (on its own
 * pages and acting for a merchant) open it with data on it (long references and addresses,
 * payments of each ending, a payout, webhook deliveries with their exchange opened, an
 * invitation, secrets shown once, test and live mode), and every page signed out, fits 360, 768
 * and 1280 px and passes axe at each of them. At 360 px the header's Menu button opens the menu
 * and closes it again, with every section in it. The layout does not depend on the database, so
 * SQLite alone is used.
 */
describe('every dashboard page fits every width and passes axe', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const ctx = useTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });
  let receiver: Receiver;
  // The first try of each webhook fails, so that the log shows both endings.
  before(async () => {
    receiver = await startReceiver((n) =>
      n === 1 ? { status: 500, body: '{"error":"try again"}' } : { status: 200, body: 'ok' },
    );
  });
  after(() => receiver.close());

  /** The page fits each checked width and passes axe there; the tab is given its own size back. */
  async function check(page: Page, what: string): Promise<void> {
    const own = page.viewportSize() ?? { width: 1280, height: 800 };
    try {
      for (const width of CHECKED_WIDTHS) {
        await page.setViewportSize({ width, height: own.height });
        await assertFits(page, `${what} at ${width} px`);
        await assertAccessible(page, `${what} at ${width} px`);
      }
    } finally {
      await page.setViewportSize(own);
    }
  }

  /**
   * On a 360 px phone the sections, the mode switch and the account are behind the header's Menu
   * button: it opens them (every section of `sections`, on the screen, the open menu fitting and
   * passing axe) and closes them again. On a desktop there is no button and the sections show.
   */
  async function checkMenu(page: Page, what: string, sections: string[]): Promise<void> {
    const summary = page.locator('header details.menu > summary');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    try {
      await page.setViewportSize({ width: 360, height: 740 });
      assert.ok(await summary.isVisible(), `${what}: a Menu button at 360 px`);
      assert.equal(await nav.isVisible(), false, `${what}: the sections are behind the button`);
      await summary.click();
      assert.deepEqual(await nav.getByRole('link').allTextContents(), sections, `${what}: the sections in the menu`);
      for (const link of [
        ...(await nav.getByRole('link').all()),
        page.getByRole('button', { name: /^Switch to / }),
        page.getByRole('button', { name: 'Sign out' }).first(),
      ]) {
        const box = await link.boundingBox();
        assert.ok(
          box && box.x >= 0 && box.x + box.width <= 360 && box.y + box.height <= 740,
          `${what}: ${await link.textContent()} on the screen`,
        );
      }
      await assertFits(page, `${what} with the menu open at 360 px`);
      await assertAccessible(page, `${what} with the menu open at 360 px`);
      await summary.click();
      assert.equal(await nav.isVisible(), false, `${what}: the menu closes again`);
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.equal(await summary.isVisible(), false, `${what}: no Menu button on a desktop`);
      assert.ok(await nav.isVisible(), `${what}: the sections in the header on a desktop`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }

  async function signedIn(role: 'owner' | 'viewer' | 'operator'): Promise<Page> {
    const { page } = await browser.newTab({ width: 1280, height: 800 });
    await signInPage(page, ctx.gw.url, await dashboardUser(ctx.gw, role, role === 'operator' ? null : ctx.merchant.id));
    await page.waitForURL((url) => url.pathname.startsWith('/dashboard'));
    return page;
  }

  const MERCHANT_SECTIONS = [
    'Overview',
    'Payments',
    'Customers',
    'Payment links',
    'Payouts',
    'Balance',
    'Developers',
    'Settings',
    'Audit log',
  ];

  test("a merchant owner's pages, with a delivery's exchange opened in the log", async () => {
    const { gw, merchant } = ctx;
    const db = gw.gateway.database.db;
    await updateMerchantSettings(
      db,
      merchant.id,
      {
        webhookUrl: `${receiver.url}/hooks/a-rather-long-path-for-the-merchants-webhook-endpoint`,
      },
      Date.now(),
    );
    const longEmail = 'chikondi.mwale-banda.accounts.payable@kumudzi-market-and-crafts.example.com';
    const longRef = `order-2026-11-28-kumudzi-market-${Date.now()}-a-long-merchant-reference`;
    await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
      tx_ref: longRef,
      email: longEmail,
      amount: 125_000,
    });
    const failed = chargeBody({ mobile: TEST_NUMBERS.airtelFailed, email: longEmail });
    assert.equal((await initializeCharge(gw, merchant.test_secret_key, failed)).status, 201);
    await verify(gw, merchant.test_secret_key, String(failed.charge_id), 'failed');
    await fundMainBalance(gw, merchant, 5000);
    const payout = await initializePayout(gw, merchant.test_secret_key, payoutBody({ amount: 1000 }));
    assert.equal(payout.status, 201, payout.text);
    await eventually(
      'webhooks to be tried',
      async () =>
        (
          await db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('merchant_id', '=', merchant.id)
            .where('attempts', '>', 0)
            .execute()
        ).length >= 2,
    );

    const page = await signedIn('owner');
    const base = gw.url;
    const sessionId = (
      await db.selectFrom('checkout_sessions').select('id').where('tx_ref', '=', longRef).executeTakeFirstOrThrow()
    ).id;
    const failedId = (
      await db
        .selectFrom('charges')
        .select('id')
        .where('charge_id', '=', String(failed.charge_id))
        .executeTakeFirstOrThrow()
    ).id;
    const payoutId = (
      await db
        .selectFrom('charges')
        .select('id')
        .where('merchant_id', '=', merchant.id)
        .where('kind', '=', 'payout')
        .executeTakeFirstOrThrow()
    ).id;
    const memberEmail = await dashboardUser(gw, 'viewer', merchant.id);
    const member = (
      await db.selectFrom('users').select('id').where('email', '=', memberEmail).executeTakeFirstOrThrow()
    ).id;
    const pages: Array<[string, string]> = [
      ['/dashboard', 'the overview'],
      ['/dashboard/payments', 'the payments list'],
      ['/dashboard/payments?from=2026-12-01&to=2026-11-01&status=nonsense', 'the payments list with its warnings'],
      [`/dashboard/payments/${sessionId}`, 'a paid checkout session'],
      [`/dashboard/payments/${failedId}`, 'a failed direct charge'],
      ['/dashboard/payments/nothing-like-this', 'the not-found page'],
      ['/dashboard/payouts', 'the payouts list'],
      [`/dashboard/payouts/${payoutId}`, 'the payout detail'],
      ['/dashboard/payouts/schedule', 'the automatic payouts form'],
      ['/dashboard/balance', 'the balance statement'],
      ['/dashboard/developers', 'the developers page'],
      ['/dashboard/settings', 'the settings and team'],
      ['/dashboard/settings/two-factor', 'the two-factor page'],
      ['/dashboard/audit', 'the audit log'],
      ['/dashboard/payments?q=ORDER-2026-11', 'the payments list searched by part of a reference'],
      ['/dashboard/customers', 'the customers list'],
      [`/dashboard/customers/${encodeURIComponent(longEmail)}`, 'a customer with their payments'],
      ['/dashboard/account', 'your own account and its sign-ins'],
      ['/dashboard/developers/webhook/secret', 'the webhook secret roll confirmation'],
      [`/dashboard/settings/team/${member}/remove`, 'the confirmation of a member removed'],
      [`/dashboard/settings/team/${member}/reset-password`, 'the confirmation of a member’s password reset'],
    ];
    for (const [path, what] of pages) {
      await page.goto(`${base}${path}`);
      await check(page, what);
    }
    await page.goto(`${base}/dashboard/payments`);
    await checkMenu(page, "an owner's payments list", MERCHANT_SECTIONS);

    await page.goto(`${base}/dashboard/settings`);
    await page.getByLabel('Email', { exact: true }).fill(longEmail);
    await submitForm(page, 'button:text("Send the invitation")');
    await page.getByRole('link', { name: `Cancel the invitation of ${longEmail}` }).click();
    await page.waitForURL(/\/cancel$/);
    await check(page, 'the page confirming an invitation is cancelled');

    await page.goto(`${base}/dashboard/developers`);
    await page.click('button:text("Roll the test secret key")');
    await page.locator('.new-secret').waitFor();
    await check(page, 'a new secret key, shown once');
    await page.goto(`${base}/dashboard/developers/webhook/secret`);
    await page.click('main button:text("Roll the test webhook secret")');
    await page.locator('.new-secret').waitFor();
    await check(page, 'a new webhook secret, shown once');

    await page.goto(`${base}/dashboard/developers`);
    await submitForm(page, 'header button:text("Switch to live")');
    await check(page, 'the developers page in live mode');
    for (const [path, what] of [
      ['/dashboard', 'the overview in live mode, with no payment yet'],
      ['/dashboard/payments', 'the payments list in live mode, with none'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await check(page, what);
    }
    await checkMenu(page, "an owner's page in live mode", MERCHANT_SECTIONS);
    await submitForm(page, 'header button:text("Switch to test")');

    await page.goto(`${base}/dashboard/developers`);
    const exchanges = page.locator('section[aria-labelledby=deliveries-heading] details');
    assert.ok((await exchanges.count()) >= 2, 'deliveries with an exchange to open');
    for (const summary of await exchanges.locator('summary').all()) await summary.click();
    await check(page, 'the delivery log with every exchange open');
    // On a phone an opened exchange and its Retry button are on the screen, not off to the side in a table's scrolling frame.
    await page.setViewportSize({ width: 360, height: 740 });
    const log = page.locator('section[aria-labelledby=deliveries-heading]');
    for (const shown of [...(await log.locator('pre').all()), ...(await log.locator('button:text("Retry")').all())]) {
      const box = (await shown.boundingBox())!;
      assert.ok(
        box.x >= 0 && box.x + box.width <= 360,
        `${await shown.evaluate((element) => element.outerHTML.slice(0, 60))} is within 360 px (from ${Math.round(box.x)} to ${Math.round(box.x + box.width)})`,
      );
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${base}/dashboard/payments/${sessionId}`);
    await page.getByLabel(/Amount to refund/).fill('250');
    await page.click('main button:text("Review the refund")');
    await page.locator('h1', { hasText: 'Confirm the refund' }).waitFor();
    await check(page, 'the refund confirmation');

    await page.goto(`${base}/dashboard/payouts/new`);
    await page.getByLabel('Mobile number (Airtel Money or TNM Mpamba)').fill(TEST_NUMBERS.airtelSuccess);
    await page.getByLabel('Account holder’s name').fill('Peter Phiri');
    await page.getByLabel('Amount (MWK, whole kwacha)').fill('1000');
    await check(page, 'the new payout form');
    await page.click('main button:text("Review payout")');
    await page.waitForURL(`${base}/dashboard/payouts/new/confirm`);
    await check(page, 'the payout confirmation');
  });

  test("a viewer's pages: fewer buttons, and the page refusing what the role may not do", async () => {
    const page = await signedIn('viewer');
    const base = ctx.gw.url;
    for (const [path, what] of [
      ['/dashboard/developers', "the developers page as a viewer's"],
      ['/dashboard/settings', "the settings as a viewer's"],
      ['/dashboard/payouts/new', 'the page refusing a new payout to a viewer'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await check(page, what);
    }
  });

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
      await enableTwoFactor(db, (await findUserByEmail(db, email))!, secret, totpCode(secret), gw.gateway.clock.now()),
    );
    await page.goto(`${gw.url}/dashboard/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(DASHBOARD_PASSWORD);
    await submitForm(page, 'button[type=submit]');
    await page.getByLabel('Code', { exact: true }).waitFor();
    await check(page, 'the code step of sign-in');
  });
});
