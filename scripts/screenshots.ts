/**
 * `npm run screenshots`: photographs the hosted checkout for the README. Runs a gateway on a
 * temporary SQLite database, a merchant site for the redirects to land on and Debian's headless
 * Chromium, walks through the test-mode flows (and a direct card charge's 3-D Secure page) and
 * saves PNGs into docs/screenshots/.
 */
import fs from 'node:fs';
import type { Browser, Page, ViewportSize } from 'playwright-core';
import { launchBrowser, openTab, startMerchantSite, submitForm, type MerchantSite } from '../test/helpers/browser.ts';
import { cardBody, chargeCard } from '../test/helpers/cards.ts';
import { currentBody } from '../test/helpers/fixtures.ts';
import { startExampleShop } from '../test/helpers/example-shop.ts';
import { call, startTestGateway, type TestGateway } from '../test/helpers/gateway.ts';

const OUT_DIR = new URL('../docs/screenshots/', import.meta.url);
const PHONE: ViewportSize = { width: 360, height: 740 };
const DESKTOP: ViewportSize = { width: 1280, height: 800 };
/** Phones are photographed at twice their CSS size, as their screens show them, so the text stays sharp. */
const PHONE_SCALE = 2;

interface Scene {
  gw: TestGateway;
  secretKey: string;
  publicKey: string;
  shop: MerchantSite;
  browser: Browser;
  /** How many sessions were opened, to number their references. */
  sessions: number;
}

/** A new session opened in a fresh browser context; closing it closes the context. */
async function openCheckout(
  scene: Scene,
  viewport: ViewportSize,
  overrides: Record<string, unknown> = {},
): Promise<{ page: Page; checkoutUrl: string; close(): Promise<void> }> {
  scene.sessions += 1;
  // A short merchant reference reads better on the receipt than the tests' unique ones.
  const body = currentBody({
    tx_ref: `order-7-${scene.sessions}`,
    callback_url: `${scene.shop.origin}/paid?order=7`,
    return_url: `${scene.shop.origin}/cancelled`,
    ...overrides,
  });
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
  await (what.element
    ? page.locator(what.element).screenshot(options)
    : page.screenshot({ ...options, fullPage: what.fullPage ?? false }));
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
  // A second on the timer, as a customer waiting sees it.
  await page.waitForFunction(() => document.getElementById('elapsed')?.textContent !== '0:00');
  await save(page, 'mobile-money-approval', { fullPage: true });
  await close();
}

/** The bank transfer method: an amount whose kwacha end in 14, so that no test transfer arrives while the page is photographed. */
async function payingByBankTransfer(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE, { amount: 25014 });
  await page.click('#method-bank');
  await submitForm(page, '#pay-bank');
  await page.locator('#transfer').waitFor();
  await save(page, 'bank-transfer', { fullPage: true });
  await close();
}

async function cancelling(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE);
  await page.click('#cancel');
  await page.locator('#cancel-confirm').waitFor();
  await page.locator('#cancel-confirm').scrollIntoViewIfNeeded();
  await save(page, 'cancel-confirm');
  await close();
}

async function cardOnly(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE, { currency: 'USD', amount: 25 });
  await save(page, 'payment-page-usd', { fullPage: true });
  await close();
}

async function desktop(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, DESKTOP);
  await save(page, 'payment-page-desktop');
  await close();
}

/** Three failed tries: the first says what to do and how many tries are left, the last ends on our page. */
async function failedAttempts(scene: Scene): Promise<void> {
  const { page, close } = await openCheckout(scene, PHONE);
  for (let attempt = 1; attempt <= 3; attempt++) {
    await page.fill('#mobile', '0990000001');
    await submitForm(page, '#pay-mobile');
    if (attempt < 3) await page.locator('.error[role=alert]').waitFor();
    if (attempt === 1) await save(page, 'payment-failed');
  }
  await page.locator('#ended').waitFor();
  await save(page, 'last-try-failed', { fullPage: true });
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

/** A direct card charge's 3-D Secure page (`3ds_auth_link`), after one wrong code. */
async function directCardThreeDs(scene: Scene): Promise<void> {
  const body = cardBody({
    charge_id: 'order-7-card',
    amount: 25_000,
    redirect_url: `${scene.shop.origin}/paid?order=7`,
  });
  const started = await chargeCard(scene.gw, scene.secretKey, body);
  if (started.status !== 200) throw new Error(`starting a card charge failed: ${started.text}`);
  const { context, page } = await openTab(scene.browser, PHONE, PHONE_SCALE);
  await page.goto(started.body['3ds_auth_link']);
  await page.fill('#otp', '9999');
  await page.click('#submit-otp');
  await page.locator('.error[role=alert]').waitFor();
  await save(page, 'card-3ds', { fullPage: true });
  await context.close();
}

/** examples/shop.html, served from its own origin, with the inline popup open over it. */
async function inlinePopup(scene: Scene): Promise<void> {
  const exampleShop = await startExampleShop(scene.gw.url, scene.publicKey);
  const { context, page } = await openTab(scene.browser, DESKTOP);
  try {
    await page.goto(exampleShop.origin);
    await page.click('#pay-popup');
    await page.frameLocator('[role=dialog] iframe').locator('#mobile').waitFor();
    await save(page, 'inline-popup');
  } finally {
    await context.close();
    await exampleShop.close();
  }
}

fs.mkdirSync(OUT_DIR, { recursive: true });
// Three seconds, as the default: long enough for the approval page to hold still for its picture.
const gw = await startTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '3s' });
const shop = await startMerchantSite();
const browser = await launchBrowser();
try {
  const merchant = await gw.newMerchant('Kumudzi Market');
  const scene: Scene = {
    gw,
    secretKey: merchant.test_secret_key,
    publicKey: merchant.test_public_key,
    shop,
    browser,
    sessions: 0,
  };
  await payingByMobile(scene);
  await payingByBankTransfer(scene);
  await desktop(scene);
  await failedAttempts(scene);
  await cancelling(scene);
  await cardOnly(scene);
  await cardWithReceipt(scene);
  await directCardThreeDs(scene);
  await inlinePopup(scene);
} finally {
  await browser.close();
  await shop.close();
  await gw.close();
}
