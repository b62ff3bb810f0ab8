import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { fundMainBalance, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * A merchant's owner pays out from the balance a sandbox payment made: Payouts → New payout, a
 * wallet payout reviewed on the confirmation (fee and the balance after), sent, its detail shown;
 * then the Balance page lists the payout's debit.
 */
describe('dashboard payouts in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });

      test('create a payout with confirmation', async () => {
        await fundMainBalance(ctx.gw, ctx.merchant, 5000); // MWK 4,850.00 once its 3 % fee is taken
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);

        await page.click('nav.sections a:text("Payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts`);
        assert.match((await page.locator('main').textContent()) ?? '', /No payouts in test mode yet/);
        await assertAccessible(page, 'the empty payouts list');
        await assertFitsEveryWidth(page, 'the empty payouts list');

        await page.click('main a:text("New payout")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts/new`);
        assert.equal(await page.isVisible('#bank_uuid'), false, 'a wallet payout asks for no bank');
        await page.getByLabel('Bank account').check();
        assert.equal(await page.isVisible('#bank_uuid'), true, 'a bank payout asks for the bank');
        assert.equal(await page.isVisible('#mobile'), false);
        await page.getByLabel('Mobile money wallet').check();
        await page.getByLabel('Mobile number (Airtel Money or TNM Mpamba)').fill(TEST_NUMBERS.airtelSuccess);
        await page.getByLabel('Account holder’s name').fill('Peter Phiri');
        await page.getByLabel('Amount (MWK, whole kwacha)').fill('1000');
        await checkDashboardPage(page, 'the new payout form', 'payout-new');

        await page.click('main button:text("Review payout")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts/new/confirm`);
        const confirmation = (await page.locator('dl.facts').textContent()) ?? '';
        assert.match(confirmation, /Fee\s*MWK 10\.00/);
        assert.match(confirmation, /Total debited\s*MWK 1,010\.00/);
        assert.match(confirmation, /Main balance now\s*MWK 4,850\.00/);
        assert.match(confirmation, /Main balance after\s*MWK 3,840\.00/);
        await checkDashboardPage(page, 'the payout confirmation', 'payout-confirm');

        await submitForm(page, 'main button:text("Send MWK 1,000.00")');
        await page.waitForURL(/\/dashboard\/payouts\/chg_[A-Za-z0-9]+\?sent=1$/);
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /The payout was sent/);
        assert.match((await page.locator('dl.facts').textContent()) ?? '', /Recipient\s*0990xxxx00 \(Airtel Money\)/);
        await checkDashboardPage(page, 'the payout detail', 'payout-detail');
        const payoutPath = new URL(page.url()).pathname;

        await page.click('nav.sections a:text("Payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts`);
        assert.equal(await page.locator(`main a[href="${payoutPath}"]`).count(), 1, 'the list links to the payout');
        await checkDashboardPage(page, 'the payouts list', 'payouts');

        await page.click('nav.sections a:text("Balance")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/balance`);
        const entry = page.locator(`main a[href="${payoutPath}"]`);
        assert.match((await entry.textContent()) ?? '', /^Payout dash_[A-Za-z0-9]{20}: amount and fee$/);
        assert.match((await page.locator('main').textContent()) ?? '', /Main balance\s*MWK 3,840\.00/);
        await checkDashboardPage(page, 'the balance page', 'balance');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
