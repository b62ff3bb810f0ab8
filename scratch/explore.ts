// Scratch: not committed. Seeds a gateway and photographs dashboard pages at given widths.
import { launchBrowser, openTab } from '../test/helpers/browser.ts';
import { dashboardUser, signInPage } from '../test/helpers/dashboard-pages.ts';
import { startTestGateway } from '../test/helpers/gateway.ts';
import { chargeBody, fundMainBalance, initializeCharge, initializePayout, payoutBody, TEST_NUMBERS, verify } from '../test/helpers/mobile-money.ts';
import { payByMobileMoney } from '../test/helpers/payments.ts';

const gw = await startTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });
const browser = await launchBrowser();
try {
  const merchant = await gw.newMerchant('Kumudzi Market and Crafts');
  const key = merchant.test_secret_key;
  let txRef = '';
  for (const amount of [125_000, 4500, 980_000]) txRef = (await payByMobileMoney(gw.url, key, TEST_NUMBERS.airtelSuccess, { amount, tx_ref: `order-2026-11-28-kumudzi-market-${amount}-a-long-merchant-reference`, email: 'chikondi.mwale@kumudzi-market.example.com' })).txRef;
  const sessionId = (await gw.gateway.database.db.selectFrom('checkout_sessions').select('id').where('tx_ref', '=', txRef).executeTakeFirstOrThrow()).id;
  const failed = chargeBody({ mobile: TEST_NUMBERS.airtelFailed });
  await initializeCharge(gw, key, failed);
  await verify(gw, key, String(failed.charge_id), 'failed');
  await fundMainBalance(gw, merchant, 5000);
  await initializePayout(gw, key, payoutBody({ amount: 1000 }));
  const widths = (process.env.WIDTHS ?? '360,1280').split(',').map(Number);
  const paths = (process.env.PATHS ?? '/dashboard,/dashboard/payments').split(',');
  for (const role of (process.env.ROLES ?? 'owner').split(',') as Array<'owner' | 'operator'>) {
    const { page, context } = await openTab(browser, { width: 1280, height: 800 });
    await signInPage(page, gw.url, await dashboardUser(gw, role, role === 'owner' ? merchant.id : null));
    await page.waitForURL((url) => url.pathname.startsWith('/dashboard'));
    if (process.env.MODE === 'live') await context.addCookies([{ name: 'lipira_mode', value: 'live', url: `${gw.url}/dashboard` }]);
    for (const path of paths) {
      for (const width of widths) {
        await page.setViewportSize({ width, height: width < 500 ? 740 : 800 });
        await page.goto(gw.url + path.replace('MERCHANT', merchant.id).replace('SESSION', sessionId));
        const file = `/tmp/shots/${role}${path.replace(/\//g, '_')}-${width}.png`;
        if (process.env.ACTION) await page.evaluate(process.env.ACTION).catch(() => {});
        if (process.env.FULL === '1') {
          const height = await page.evaluate(() => document.documentElement.scrollHeight);
          const chunk = width < 500 ? 900 : 1000;
          for (let y = 0, n = 0; y < height; y += chunk, n++) {
            const part = file.replace('.png', `-${n}.png`);
            await page.screenshot({ path: part, fullPage: true, clip: { x: 0, y, width, height: Math.min(chunk, height - y) } });
            console.log(part);
          }
        } else {
          await page.screenshot({ path: file });
          console.log(file);
        }
      }
    }
    await context.close();
  }
} finally {
  await browser.close();
  await gw.close();
}
