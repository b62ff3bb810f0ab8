import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { fakeClock } from '../helpers/clock.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { fundMainBalance, TEST_NUMBERS } from '../helpers/mobile-money.ts';

/** Monday 3 March 2031, 10:00 in Blantyre. */
const MONDAY_TEN = Date.UTC(2031, 2, 3, 8);

/**
 * On a 360 px phone, the owner sets up automatic payouts from the payouts page: the form shows
 * the day of the week only for a weekly payout and a new recipient's fields only when someone new
 * is chosen; the confirmation gives the first run; the payouts page then shows the next one.
 */
describe('the automatic payouts form in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const clock = fakeClock(MONDAY_TEN);
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' }, clock);

      test('set up a weekly payout to a new wallet on a phone', async () => {
        await fundMainBalance(ctx.gw, ctx.merchant, 5000);
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 360, height: 740 });
        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);
        await page.goto(`${ctx.gw.url}/dashboard/payouts`);
        assert.match(
          (await page.locator('section.automatic').textContent()) ?? '',
          /No automatic payouts in test mode/,
        );

        await page.click('main a:text("Set up automatic payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts/schedule`);
        assert.equal(await page.isVisible('#weekday'), true, 'weekly by default: the day is asked');
        await page.getByLabel('Every day').check();
        assert.equal(await page.isVisible('#weekday'), false, 'a daily payout asks for no day');
        await page.getByLabel('Once a week').check();
        await page.getByLabel('Day of the week').selectOption({ label: 'Friday' });
        await page.getByLabel('Minimum balance (MWK, whole kwacha)').fill('2,000');
        assert.equal(await page.isVisible('#mobile'), true, 'someone new: their wallet is asked for');
        await page.getByLabel('Mobile number (Airtel Money or TNM Mpamba)').fill(TEST_NUMBERS.airtelSuccess);
        await page.getByLabel('Account holder’s name').fill('Grace Banda');
        // Axe on the phone, its screenshot, then every width, then the phone again.
        await checkDashboardPage(page, 'the automatic payouts form', 'payout-schedule-phone');

        await page.setViewportSize({ width: 360, height: 740 });
        await page.click('main button:text("Review automatic payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts/schedule/confirm`);
        const facts = (await page.locator('dl.facts').textContent()) ?? '';
        assert.match(facts, /When\s*Every Friday at 08:00 \(Africa\/Blantyre\)/);
        assert.match(facts, /First run\s*7 March 2031 at 08:00 CAT/);
        await checkDashboardPage(page, 'the automatic payouts confirmation');

        await page.setViewportSize({ width: 360, height: 740 });
        await submitForm(page, 'main button:text("Start automatic payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts?done=schedule_saved`);
        const section = (await page.locator('section.automatic').textContent()) ?? '';
        assert.match(section, /Next payout\s*7 March 2031 at 08:00 CAT/);
        assert.match(section, /Grace Banda, 0990xxxx00 \(Airtel Money\)/);
        await checkDashboardPage(page, 'the payouts page with automatic payouts', 'payouts-automatic-phone');

        await page.click('main a:text("Stop automatic payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts/schedule/stop`);
        await checkDashboardPage(page, 'the stop confirmation');
        await submitForm(page, 'main button:text("Stop automatic payouts")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payouts?done=schedule_stopped`);
        assert.match((await page.locator('section.automatic').textContent()) ?? '', /No automatic payouts/);
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
