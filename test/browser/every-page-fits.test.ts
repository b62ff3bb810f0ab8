import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { dashboardUser } from '../helpers/dashboard-pages.ts';
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
import { dashboardPageChecks, MERCHANT_SECTIONS } from './dashboard-page-checks.ts';

/**
 * Every dashboard page, as a merchant's owner and a viewer open it with data on it (long
 * references and addresses, payments of each ending, a payout, webhook deliveries with their
 * exchange opened, an invitation, secrets shown once, test and live mode), fits 360, 768 and
 * 1280 px and passes axe at each of them. At 360 px the header's Menu button opens the menu and
 * closes it again, with every section in it. The operator's pages and those signed out are in
 * every-page-fits-operator.test.ts. The layout does not depend on the database, so SQLite alone
 * is used.
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

  const { check, checkMenu, signedIn } = dashboardPageChecks(browser, ctx);

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
});
