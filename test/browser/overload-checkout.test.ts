import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Response } from 'playwright-core';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite, type MerchantSite } from '../helpers/browser.ts';
import { startExampleShop } from '../helpers/example-shop.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { holdRequests } from '../helpers/held-requests.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { answerWaitingAttempt } from '../helpers/payments.ts';

/** Chromium's own line for an answer that was not 2xx: the page meant to ask again, so not a problem. */
const BUSY_ANSWER_LOGGED = /the server responded with a status of 503/;

/**
 * A gateway shedding load (src/http/overload.ts) as a shopper meets it in headless Chromium: the
 * waiting page's status poll and the popup's create take a 503 as "ask again shortly", never as a
 * failure, and carry on once the gateway has caught up. The load is two requests held in flight
 * over `OVERLOAD_MAX_IN_FLIGHT=2`, released when the test has seen the refusals.
 */
describe('a busy gateway in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const site = useMerchantSite();
  const ctx = useTestGateway('sqlite', {
    OVERLOAD_MAX_IN_FLIGHT: '2',
    // The phone answers when the test says (after the refusals were seen), never by itself: with 2 s a
    // loaded machine could settle the payment before the waiting page had loaded.
    SANDBOX_MOBILE_DELAY: '1h',
    WORKER_INTERVAL: '100ms',
  });
  let shop: MerchantSite;
  before(async () => {
    shop = await startExampleShop(ctx.gw.url, ctx.merchant.test_public_key);
  });
  after(() => shop.close());

  test('the waiting page keeps waiting through 503s from its status poll, then goes on to the shop once paid', async () => {
    const body = currentBody({ callback_url: `${site.origin}/paid?order=7` });
    const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
    assert.equal(created.status, 201, created.text);
    const { page, problems } = await browser.newTab({ width: 360, height: 740 });
    await page.goto(created.body.data.checkout_url);
    await page.fill('#mobile', '0990000000');
    await submitForm(page, '#pay-mobile');
    await page.locator('#approval').waitFor();
    const waitingAt = page.url();

    const polls: number[] = [];
    page.on('response', (response: Response) => {
      if (response.url().endsWith('/status')) polls.push(response.status());
    });
    const held = await holdRequests(ctx.gw.url, ctx.merchant.test_secret_key, 2);
    try {
      await eventually('two polls refused as busy', () => polls.filter((status) => status === 503).length >= 2, 15_000);
      assert.equal(page.url(), waitingAt, 'still on the waiting page: no reload, no error page');
      assert.ok(await page.locator('#approval').isVisible());
    } finally {
      await held.release();
    }
    await answerWaitingAttempt(ctx.gw, ctx.merchant.test_secret_key, String(body.tx_ref), { status: 'success' });
    await page.waitForURL((url) => url.origin === site.origin && url.pathname === '/paid', { timeout: 15_000 });
    assert.equal(new URL(page.url()).searchParams.get('tx_ref'), body.tx_ref);
    assert.deepEqual(
      problems.filter((problem) => !BUSY_ANSWER_LOGGED.test(problem)),
      [],
    );
  });

  test('the popup asks again when its create is refused as busy, says so, and opens the payment page once served', async () => {
    const { page, problems } = await browser.newTab();
    await page.goto(shop.origin);
    const held = await holdRequests(ctx.gw.url, ctx.merchant.test_secret_key, 2);
    try {
      await page.click('#pay-popup');
      await page.locator('[role=dialog]', { hasText: 'The payment page is busy: trying again in a moment…' }).waitFor();
    } finally {
      await held.release();
    }
    await page.frameLocator('[role=dialog] iframe').locator('#mobile').waitFor();
    assert.deepEqual(
      problems.filter((problem) => !BUSY_ANSWER_LOGGED.test(problem)),
      [],
    );
  });
});
