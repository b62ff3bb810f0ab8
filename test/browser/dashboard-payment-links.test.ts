import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, saveDashboardScreenshot, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';

/**
 * A merchant with no website, on the dashboard: Payment links → New payment link, the link's page
 * with its URL, QR code and share buttons; a customer pays it with the sandbox's mobile money
 * number and the payment shows under the link; the link is turned off and on. A viewer reads only.
 */
describe('dashboard payment links in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '100ms', WORKER_INTERVAL: '50ms' });

      test('an owner makes a link on a phone, shares it, sees it paid, turns it off and on', async () => {
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, email);
        await page.waitForURL(`${ctx.gw.url}/dashboard`);

        await page.click('nav.sections a:text("Payment links")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payment-links`);
        assert.match((await page.locator('main').textContent()) ?? '', /No payment links in test mode yet/);
        await checkDashboardPage(page, 'the empty payment links list');

        await page.click('main a:text("New payment link")');
        await page.waitForURL(`${ctx.gw.url}/dashboard/payment-links/new`);
        await page.getByLabel('Title (what is being paid for)').fill('Chitenje fabric, 2 m');
        await page.getByLabel('Description (optional)').fill('Wax print <b>from</b> the market');
        await page.getByLabel('Fixed amount (whole units)').fill('15000');
        await checkDashboardPage(page, 'the new payment link form', 'payment-link-new');
        await submitForm(page, 'main button:text("Create payment link")');
        await page.waitForURL(/\/dashboard\/payment-links\/plink_[0-9A-Za-z]{16}\?done=created$/);
        const url = (await page.textContent('#link-url'))!;
        assert.match(url, new RegExp(`^${ctx.gw.url}/pay/[0-9A-Za-z]{12}$`));
        const whatsapp = (await page.getAttribute('#share-whatsapp', 'href'))!;
        assert.equal(whatsapp, `https://wa.me/?text=${encodeURIComponent(`Chitenje fabric, 2 m: ${url}`)}`);
        assert.match((await page.getAttribute('#share-email', 'href'))!, /^mailto:\?subject=Chitenje/);
        assert.match((await page.getAttribute('#link-qr', 'src'))!, /^data:image\/svg\+xml;base64,/);

        // The customer, in a browser of their own.
        const customer = await browser.newTab({ width: 360, height: 740 });
        await customer.page.goto(url);
        assert.equal(await customer.page.textContent('.order-description'), 'Wax print <b>from</b> the market');
        await saveDashboardScreenshot(customer.page, 'payment-link-page-phone');
        await customer.page.getByLabel('Your name').fill('Chisomo Banda');
        await submitForm(customer.page, '#continue');
        await customer.page.fill('#mobile', TEST_NUMBERS.airtelSuccess);
        await submitForm(customer.page, '#pay-mobile');
        await customer.page.locator('#receipt').waitFor();

        await page.reload();
        assert.match((await page.locator('main table').textContent()) ?? '', /Chisomo Banda/);
        assert.match((await page.locator('dl.facts').textContent()) ?? '', /1 × · MWK 15,000\.00 collected/);
        const linkPage = page.url();
        await page.goto(`${ctx.gw.url}/dashboard/payments`);
        const row = page.locator('main tbody tr', { hasText: 'MWK 15,000.00' });
        assert.equal(await row.count(), 1, 'and on the payments list, as any payment');
        assert.match((await row.textContent()) ?? '', /Successful/);
        await page.goto(linkPage);
        await checkDashboardPage(page, 'a payment link with its payment', 'payment-link');
        await page.setViewportSize({ width: 360, height: 740 });
        await saveDashboardScreenshot(page, 'payment-link-phone', { fullPage: false });
        await page.setViewportSize({ width: 1280, height: 800 });

        await submitForm(page, 'main button:text("Turn the link off")');
        await page.waitForURL(/\?done=off$/);
        assert.equal((await customer.page.goto(url))?.status(), 410);
        await submitForm(page, 'main button:text("Turn the link on again")');
        await page.waitForURL(/\?done=on$/);
        assert.equal((await customer.page.goto(url))?.status(), 200);

        await page.getByLabel('Title', { exact: true }).fill('Chitenje fabric, 3 m');
        await submitForm(page, 'main button:text("Save")');
        await page.waitForURL(/\?done=saved$/);
        assert.equal(await page.textContent('main h1'), 'Chitenje fabric, 3 m');

        await page.click('main a:text("All payment links")');
        await checkDashboardPage(page, 'the payment links list', 'payment-links');
        assert.deepEqual(problems, []);
      });

      test('a viewer reads links and is offered no change', async () => {
        const email = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
        const { page } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, ctx.gw.url, email);
        await page.goto(`${ctx.gw.url}/dashboard/payment-links`);
        assert.equal(await page.locator('main a:text("New payment link")').count(), 0);
        const link = page.locator('main table a').first();
        await link.click();
        await page.waitForURL(/\/dashboard\/payment-links\/plink_/);
        assert.equal(await page.locator('main form').count(), 0, 'no form to change the link');
        const refused = await page.goto(`${ctx.gw.url}/dashboard/payment-links/new`);
        assert.equal(refused?.status(), 403);
      });
    });
  }
});
