/**
 * `npm run screenshots`: photographs the hosted checkout for the README. Runs a gateway on a
 * temporary SQLite database, a merchant site for the redirects to land on and Debian's headless
 * Chromium, walks through the test-mode flows and saves PNGs into docs/screenshots/.
 */
import fs from 'node:fs';
import type { Browser, Page, ViewportSize } from 'playwright-core';
import { launchBrowser, openTab, startMerchantSite, submitForm, type MerchantSite } from '../test/helpers/browser.ts';
import { currentBody } from '../test/helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../test/helpers/gateway.ts';

const OUT_DIR = new URL('../docs/screenshots/', import.meta.url);
const PHONE: ViewportSize = { width: 360, height: 740 };
const DESKTOP: ViewportSize = { width: 1280, height: 800 };
/** Phones are photographed at twice their CSS size, as their screens show them, so the text stays sharp. */
const PHONE_SCALE = 2;

interface Scene {
  gw: TestGateway;
  secretKey: string;
  shop: MerchantSite;
  browser: Browser;
  /** How many sessions were opened, to number their references. */
  sessions: number;
}

/** A new session opened in a fresh browser context; closing it closes the context. */
async function openCheckout(scene: Scene, viewport: ViewportSize): Promise<{ page: Page; checkoutUrl: string; close(): Promise<void> }> {
  scene.sessions += 1;
  // A short merchant reference reads better on the receipt than the tests' unique ones.
  const body = currentBody({ tx_ref: `order-7-${scene.sessions}`, callback_url: `${scene.shop.origin}/paid?order=7`, return_url: `${scene.shop.origin}/cancelled` });
  const created = await call(scene.gw.url, '/payment', { key: scene.secretKey, body });
  if (created.status !== 201) throw new Error(`creating a session failed: ${created.text}`);
  const checkoutUrl: string = created.body.data.checkout_url;
  const { context, page } = await openTab(scene.browser, viewport, viewport === PHONE ? PHONE_SCALE : 1);
  await page.goto(checkoutUrl);
  return { page, checkoutUrl, close: () => context.close() };
}

/**
 * Saves the viewport, the whole page or one element of it. Infinite animations (the approval
 * spinner) are stopped so that the picture does not depend on timing.
 */
async function save(page: Page, name: string, what: { fullPage?: boolean; element?: string } = {}): Promise<void> {
  const file = new URL(`${name}.png`, OUT_DIR);
  const options = { path: file.pathname, animations: 'disabled' } as const;
  await (what.element ? page.locator(what.element).screenshot(options) : page.screenshot({ ...options, fullPage: what.fullPage ?? false }));
  process.stdout.write(`${file.pathname} (${Math.round(fs.statSync(file).size / 1024)} KB)\n`);
}

async function payingByMobile(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE);
  await save(page, 'payment-page-phone', { fullPage: true });
  await page.click('details.test-instruments > summary');
  await save(page, 'test-instruments', { element: '.test-banner' });
  await page.fill('#mobile', '0990000000');
  await submitForm(page, '#pay-mobile');
  await page.locator('#approval').waitFor();
  await save(page, 'mobile-money-approval');
  await close();
}

async function desktop(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, DESKTOP);
  await save(page, 'payment-page-desktop');
  await close();
}

async function failedAttempt(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE);
  await page.fill('#mobile', '0990000001');
  await submitForm(page, '#pay-mobile');
  await page.locator('.error[role=alert]').waitFor();
  await save(page, 'payment-failed');
  await close();
}

async function cardWithReceipt(scene: Scene): Promise<void> {
  const { page, checkoutUrl, close } = await openCheckout(scene, PHONE);
  await page.click('#method-card');
  await page.fill('#card-number', '4242 4242 4242 4242');
  await page.fill('#card-expiry', '12/30');
  await page.fill('#card-cvv', '123');
  await submitForm(page, '#pay-card');
  await page.locator('#otp').waitFor();
  await save(page, 'card-otp');
  await page.fill('#otp', '1234');
  await submitForm(page, '#submit-otp');
  await page.waitForURL((url) => url.origin === scene.shop.origin);
  // A paid session's checkout link shows its receipt.
  await page.goto(checkoutUrl);
  await page.locator('#receipt').waitFor();
  await save(page, 'receipt', { fullPage: true });
  await close();
}

fs.mkdirSync(OUT_DIR, { recursive: true });
// Three seconds, as the default: long enough for the approval page to hold still for its picture.
const gw = await startTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '3s' });
const shop = await startMerchantSite();
const browser = await launchBrowser();
try {
  const merchant = await gw.newMerchant('Kumudzi Market');
  const scene: Scene = { gw, secretKey: merchant.test_secret_key, shop, browser, sessions: 0 };
  await payingByMobile(scene);
  await desktop(scene);
  await failedAttempt(scene);
  await cardWithReceipt(scene);
} finally {
  await browser.close();
  await shop.close();
  await gw.close();
}
