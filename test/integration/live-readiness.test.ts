import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { cardBody, chargeCard } from '../helpers/cards.ts';
import { textOf } from '../helpers/checkout-client.ts';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody } from '../helpers/fixtures.ts';
import { call, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';
import { chargeBody, chargeRows, initializeCharge, TEST_NUMBERS, TNM_REF } from '../helpers/mobile-money.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

const MWK_NOT_SET_UP =
  'Live payments are not set up on this gateway: its operator must route a payment method that takes MWK (one of airtel:…, tnm:…, card:…, bank:… in LIVE_ROUTES).';
const USD_NOT_SET_UP =
  'Live payments are not set up on this gateway: its operator must route a payment method that takes USD (LIVE_ROUTES=card:…).';
const GBP_NOT_SET_UP =
  'Live payments are not set up on this gateway: its operator must route a payment method that takes GBP (LIVE_ROUTES=card:…).';
const DASHBOARD_NOTICE =
  /<p class="warning" role="status">Live payments are not available yet: the gateway&#8217;s operator has not set up a payment method\.<\/p>/;

const refusal = (message: string) => ({ status: 'failed', message, data: null });

/** The HTML checkout's form, posted with `publicKey`. */
function postForm(gw: TestGateway, publicKey: string, currency = 'MWK'): Promise<Response> {
  const form = new URLSearchParams({
    public_key: publicKey,
    tx_ref: String(currentBody().tx_ref),
    amount: '2500',
    currency,
    callback_url: 'https://shop.example.com/paid',
    return_url: 'https://shop.example.com/back',
    first_name: 'Ada',
  });
  return fetch(`${gw.url}/hosted-payment-page`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
}

const sessionCount = async (gw: TestGateway, merchant: MerchantCredentials) =>
  Number(
    (
      await gw.gateway.database.db
        .selectFrom('checkout_sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_id', '=', merchant.id)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function ownerOf(gw: TestGateway, merchant: MerchantCredentials): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(gw.url);
  assert.equal(
    (await browser.signIn(await dashboardUser(gw, 'owner', merchant.id), DASHBOARD_PASSWORD)).location,
    '/dashboard',
  );
  return browser;
}

for (const kind of DATABASE_KINDS) {
  describe(`live payments on a gateway whose operator routed none (${kind})`, () => {
    const ctx = useTestGateway(kind);

    test('every way of creating a live session is refused (400, what the operator must set), and nothing is recorded; test keys are unaffected', async () => {
      const { merchant } = ctx;
      const current = await call(ctx.gw.url, '/payment', { key: merchant.live_secret_key, body: currentBody() });
      assert.equal(current.status, 400, current.text);
      assert.deepEqual(current.body, refusal(MWK_NOT_SET_UP));
      assert.deepEqual(
        (await call(ctx.gw.url, '/payment', { key: merchant.live_secret_key, body: currentBody({ currency: 'USD' }) }))
          .body,
        refusal(USD_NOT_SET_UP),
      );
      assert.deepEqual(
        (
          await call(ctx.gw.url, '/api/payment', {
            key: merchant.live_secret_key,
            body: legacyBody({ currency: 'MWK' }),
          })
        ).body,
        refusal(MWK_NOT_SET_UP),
      );
      assert.deepEqual(
        (
          await call(ctx.gw.url, '/api/payment', {
            body: legacyBody({ secret_key: merchant.live_secret_key, currency: 'GBP' }),
          })
        ).body,
        refusal(GBP_NOT_SET_UP),
      );

      const popup = await call(ctx.gw.url, '/popup/payment', {
        key: merchant.live_public_key,
        body: currentBody(),
        headers: { origin: 'https://shop.example.com' },
      });
      assert.equal(popup.status, 400);
      assert.deepEqual(popup.body, refusal(MWK_NOT_SET_UP));
      assert.equal(
        popup.headers.get('access-control-allow-origin'),
        'https://shop.example.com',
        "the popup's script can read why",
      );

      const form = await postForm(ctx.gw, merchant.live_public_key);
      assert.equal(form.status, 400);
      assert.match(form.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(textOf(await form.text()).includes(MWK_NOT_SET_UP), "the form's refusal page says why");
      assert.equal(await sessionCount(ctx.gw, merchant), 0, 'no live session recorded');

      assert.equal(
        (await call(ctx.gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody() })).status,
        201,
      );
      assert.equal(
        (await call(ctx.gw.url, '/popup/payment', { key: merchant.test_public_key, body: currentBody() })).status,
        201,
      );
    });

    test('live direct charges are refused at creation, each naming what is not connected, with no record', async () => {
      const key = ctx.merchant.live_secret_key;
      const mobile = chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF });
      const card = cardBody();
      const transfer = bankTransferBody();
      const answers = [
        [mobile, await initializeCharge(ctx.gw, key, mobile), 'mobile', 'TNM Mpamba'],
        [card, await chargeCard(ctx.gw, key, card), 'card_number', 'a card acquirer'],
        [transfer, await initializeBankTransfer(ctx.gw, key, transfer), 'payment_method', 'a bank for transfers'],
      ] as const;
      for (const [body, answer, field, what] of answers) {
        assert.equal(answer.status, 400, answer.text);
        assert.deepEqual(answer.body.message, {
          [field]: [
            `Live payments are not available yet: this gateway's operator has not connected ${what}. No money was moved.`,
          ],
        });
        assert.deepEqual(await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id)), [], `${what}: no record`);
      }
    });

    test("the dashboard's live overview and developers page say live payments are not set up; test mode does not", async () => {
      const browser = await ownerOf(ctx.gw, await ctx.gw.newMerchant('Unrouted Shop'));
      for (const page of ['/dashboard', '/dashboard/developers'])
        assert.doesNotMatch((await browser.get(page)).text, DASHBOARD_NOTICE, `test mode ${page}`);
      await browser.post('/dashboard/mode', { mode: 'live', back: '/dashboard' });
      for (const page of ['/dashboard', '/dashboard/developers']) {
        const shown = await browser.get(page);
        assert.equal(shown.status, 200);
        assert.match(shown.text, DASHBOARD_NOTICE, `live mode ${page}`);
      }
    });
  });

  describe(`live payments on a gateway routing Airtel Money only (${kind})`, () => {
    const ctx = useTestGateway(kind, LIVE_SESSIONS_ONLY);

    test('a live MWK session is created; a USD one, which only a card could pay, is refused naming the card route', async () => {
      const { merchant } = ctx;
      const mwk = await call(ctx.gw.url, '/payment', { key: merchant.live_secret_key, body: currentBody() });
      assert.equal(mwk.status, 201, mwk.text);
      assert.equal(mwk.body.data.data.mode, 'live');
      assert.equal((await postForm(ctx.gw, merchant.live_public_key)).status, 302);
      assert.deepEqual(
        (await call(ctx.gw.url, '/payment', { key: merchant.live_secret_key, body: currentBody({ currency: 'USD' }) }))
          .body,
        refusal(USD_NOT_SET_UP),
      );
      assert.equal((await postForm(ctx.gw, merchant.live_public_key, 'USD')).status, 400);
      assert.equal(await sessionCount(ctx.gw, merchant), 2, 'the two MWK sessions only');
    });

    test("the dashboard's live pages say nothing of it once a method is routed", async () => {
      const browser = await ownerOf(ctx.gw, await ctx.gw.newMerchant('Routed Shop'));
      await browser.post('/dashboard/mode', { mode: 'live', back: '/dashboard' });
      for (const page of ['/dashboard', '/dashboard/developers']) {
        const shown = await browser.get(page);
        assert.equal(shown.status, 200);
        assert.ok(!shown.text.includes('Live payments are not available yet'), page);
      }
    });
  });
}
