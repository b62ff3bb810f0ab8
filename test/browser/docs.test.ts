import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuiteOptions, STEP_TIMEOUT_MS, useBrowser } from '../helpers/browser.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

const GROUPS = [
  'Checkout',
  'Mobile money',
  'Payouts',
  'Bank transfer',
  'Refunds',
  'Cards',
  'Payment links',
  'Balance',
  'Webhooks',
  'Events',
  'Operator callbacks',
  'Operations',
  'Test helpers',
  'Sandbox',
];

/**
 * Every Content-Security-Policy violation the page meets, as the browser reports it to the page
 * (Chromium also logs each as a console error, which the tab records as a problem).
 */
async function recordCspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

/** What axe's best practices find in Swagger UI's own markup, which /docs serves as it comes. */
const SWAGGER_UI_MARKUP = {
  'heading-order': 'an operation group is an h3 after the h1 of the title',
  'landmark-unique': "every operation's responses are a region without a name",
};

/** The API reference at /docs and the sandbox's landing page in headless Chromium: what a developer meets in their first hour. */
describe("the developer's pages in a real browser", browserSuiteOptions(), () => {
  const browser = useBrowser();
  const ctx = useTestGateway('sqlite');

  async function openDocs() {
    const tab = await browser.newTab();
    const cspViolations = await recordCspViolations(tab.page);
    const documentsRead: string[] = [];
    tab.page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.endsWith('json')) documentsRead.push(pathname);
    });
    await tab.page.goto(`${ctx.gw.url}/docs`);
    // Swagger UI builds the whole document (~0.1 MB) in the page before its first group shows;
    // on a loaded 2-core CI machine that has taken over one browser step's 15 s.
    await tab.page
      .locator('.opblock-tag')
      .first()
      .waitFor({ timeout: 4 * STEP_TIMEOUT_MS });
    return { ...tab, cspViolations, documentsRead };
  }

  test('/docs reads /openapi.json, groups the operations by tag, and carries no vendor branding', async () => {
    const { page, problems, cspViolations, documentsRead } = await openDocs();
    assert.deepEqual(documentsRead, ['/openapi.json'], 'the document the API reference names, and only it');
    assert.equal((await page.locator('.info .link .url').textContent())?.trim(), '/openapi.json');
    assert.deepEqual(
      await page.locator('.opblock-tag').evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-tag'))),
      GROUPS,
    );
    assert.equal(
      await page.locator('#operations-tag-Checkout ~ div #operations-Checkout-createCheckoutSession').count(),
      1,
      'POST /payment is under Checkout',
    );

    assert.equal(await page.title(), 'Lipira API reference');
    assert.doesNotMatch(await page.locator('body').innerText(), /swagger|fastify/i);
    assert.equal(await page.locator('.topbar').count(), 0, 'no top bar with a vendor logo');
    assert.deepEqual(
      await page.locator('link[rel=icon]').evaluateAll((links) => links.map((link) => link.getAttribute('href'))),
      ['/docs/static/theme/favicon.svg'],
    );
    assert.deepEqual(await cspViolations(), []);
    assert.deepEqual(problems, []);
  });

  test("trying an operation works within the page's CSP, and axe finds nothing serious", async () => {
    const { page, problems, cspViolations } = await openDocs();
    const operation = page.locator('#operations-Operations-checkLiveness');
    await operation.locator('.opblock-summary-control').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    assert.equal(
      (await operation.locator('.live-responses-table tbody .response-col_status').textContent())?.trim(),
      '200',
    );
    await page.locator('#operations-Checkout-createCheckoutSession .opblock-summary-control').click();
    await page.locator('#operations-Checkout-createCheckoutSession .responses-wrapper').waitFor();

    await assertAccessible(page, 'the API reference with two operations open', SWAGGER_UI_MARKUP);
    await assertFitsEveryWidth(page, 'the API reference with two operations open');
    assert.deepEqual(await cspViolations(), []);
    assert.deepEqual(problems, []);
  });

  test('the sandbox landing page, on a phone, keeps to its CSP and axe finds nothing serious', async () => {
    const { page, problems } = await browser.newTab({ width: 360, height: 740 });
    const cspViolations = await recordCspViolations(page);
    await page.goto(`${ctx.gw.url}/sandbox/landing?tx_ref=order-1001&transaction_id=48670703025&status=success`);
    assert.equal(await page.locator('h1').textContent(), 'Back from the checkout');
    assert.equal(
      await page.locator('th', { hasText: 'transaction_id' }).locator('xpath=..').locator('td').textContent(),
      '48670703025',
    );
    await assertFitsEveryWidth(page, 'the sandbox landing page');
    await assertAccessible(page, 'the sandbox landing page');
    assert.deepEqual(await cspViolations(), []);
    assert.deepEqual(problems, []);
  });
});
