import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { startUpstreamPaychangu, type UpstreamPaychangu } from '../fakes/upstream-paychangu.ts';
import {
  cardBody,
  chargeCard,
  dumpAllTables,
  MARKED_CVV,
  openThreeDs,
  standalone,
  TEST_CARD_NUMBERS,
  verifyCard,
} from '../helpers/cards.ts';
import { CheckoutClient, type PageResponse } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { attemptChargeIds, chargeRows } from '../helpers/mobile-money.ts';

/** Short waits, so that the settler's asks happen within a test. */
const LIVE_TIMINGS = {
  LIVE_SYNC_FIRST: '200ms',
  LIVE_SYNC_MAX: '1s',
  CONNECTOR_TIMEOUT: '2s',
  WORKER_INTERVAL: '50ms',
};

/** The path and query of an absolute URL, to be asked of the server it names. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

for (const kind of DATABASE_KINDS) {
  describe(`live cards through the upstream PayChangu on ${kind}`, () => {
    let upstream: UpstreamPaychangu;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      upstream = await startUpstreamPaychangu();
      gw = await startTestGateway(kind, { ...upstream.liveEnv('card:paychangu'), ...LIVE_TIMINGS });
      merchant = await gw.newMerchant('Live Shop');
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await gw.close();
      await upstream.close();
    });

    const row = async (chargeId: string): Promise<Charge> => {
      const rows = await chargeRows(gw, merchant.id, chargeId);
      assert.equal(rows.length, 1);
      return rows[0]!;
    };
    /** The card charges the upstream holds for the operator's account. */
    const upstreamCards = () =>
      upstream.gw.gateway.database.db
        .selectFrom('charges')
        .selectAll()
        .where('merchant_id', '=', upstream.merchant.id)
        .where('channel', '=', 'card')
        .execute();

    /** On the upstream's own 3-D Secure page, types the sandbox code: its answer sends the customer back to us. */
    async function confirmAtUpstream(acquirerLink: string): Promise<string> {
      assert.ok(acquirerLink.startsWith(`${upstream.gw.url}/3ds/auth?reference=`), acquirerLink);
      const { client, path, page } = await openThreeDs(upstream.gw, acquirerLink);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      const confirmed = await client.post(path, { otp: '1234' });
      assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
      return confirmed.location!;
    }

    /** A direct live card charge from our 3-D Secure link to the merchant's redirect_url: each hop, and where the browser ends. */
    async function payDirectly(body: Record<string, unknown>): Promise<{ back: string; landed: PageResponse }> {
      const started = await chargeCard(gw, merchant.live_secret_key, body);
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.requires_3ds_auth, true);
      const link = String(started.body['3ds_auth_link']);
      assert.ok(link.startsWith(`${gw.url}/3ds/auth?reference=`), 'our own 3-D Secure link, as in test mode');
      const ours = await openThreeDs(gw, link);
      assert.equal(ours.page.status, 303, 'our page sends the customer on to the acquirer');
      const back = await confirmAtUpstream(ours.page.location!);
      assert.ok(back.startsWith(`${gw.url}/3ds/return?reference=${started.body.orderReference}`), back);
      return { back, landed: await new CheckoutClient(gw.url).get(pathOf(back)) };
    }

    test("a direct live card: our link, the upstream's 3-D Secure page, back to our return URL, then the merchant with status=success; verify and ledger agree; one card charge upstream, with the cardholder's name", async () => {
      const before = (await upstreamCards()).length;
      const body = cardBody({ cvv: MARKED_CVV, redirect_url: 'https://shop.example/orders/1/paid?order=1' });
      const { landed } = await payDirectly(body);
      assert.equal(landed.status, 303);
      const charge = await row(String(body.charge_id));
      assert.equal(
        landed.location,
        `https://shop.example/orders/1/paid?order=1&charge_id=${body.charge_id}&status=success`,
      );
      assert.equal(charge.status, 'success');
      assert.equal(charge.mode, 'live');
      const verified = await verifyCard(gw, merchant.live_secret_key, String(body.charge_id));
      assert.equal(verified.body.data.status, 'success');
      const cards = await upstreamCards();
      assert.equal(cards.length, before + 1, 'the upstream was handed the card once');
      const handed = cards.find((card) => card.charge_id === charge.id);
      assert.ok(handed, 'under our charge id');
      assert.equal(handed.status, 'success');
      assert.deepEqual(
        [handed.first_name, handed.last_name],
        ['Chikondi', 'Banda'],
        'the cardholder name was passed on',
      );
    });

    test("a declining upstream test card fails the charge with the upstream's reason, and the merchant is told status=failed", async () => {
      const body = cardBody({ card_number: TEST_CARD_NUMBERS.declined });
      const { landed } = await payDirectly(body);
      assert.equal(
        landed.location,
        `https://shop.example/orders/1/paid?order=1&charge_id=${body.charge_id}&status=failed`,
      );
      const charge = await row(String(body.charge_id));
      assert.equal(charge.status, 'failed');
      assert.match(charge.failure_reason ?? '', /DECLINED/);
      assert.equal((await verifyCard(gw, merchant.live_secret_key, String(body.charge_id))).body.data.status, 'failed');
    });

    test('a customer back at our return URL before finishing at the upstream: the charge stays pending (never failed) and the page looks again by itself', async () => {
      const body = cardBody();
      const started = await chargeCard(gw, merchant.live_secret_key, body);
      const ours = await openThreeDs(gw, String(started.body['3ds_auth_link']));
      assert.equal(ours.page.status, 303);
      const early = await new CheckoutClient(gw.url).get(
        `/3ds/return?reference=${started.body.orderReference}&status=success`,
      );
      assert.equal(early.status, 200, 'what the address says is not the outcome');
      assert.match(early.text, /http-equiv="refresh"/);
      assert.equal((await row(String(body.charge_id))).status, 'pending');
      assert.equal(
        (await openThreeDs(gw, String(started.body['3ds_auth_link']))).page.location,
        ours.page.location,
        "the link still leads to the acquirer's page",
      );
      const back = await confirmAtUpstream(ours.page.location!);
      const landed = await new CheckoutClient(gw.url).get(pathOf(back));
      assert.equal(
        landed.location,
        `https://shop.example/orders/1/paid?order=1&charge_id=${body.charge_id}&status=success`,
      );
    });

    test('a card the upstream refuses at once is refused with its reason, and leaves no record', async () => {
      const body = cardBody({ card_number: '4111 1111 1111 1111' });
      const refused = await chargeCard(gw, merchant.live_secret_key, body);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.message.card_number[0], /^PayChangu refused it: Test mode only accepts the test cards/);
      assert.deepEqual(await chargeRows(gw, merchant.id, String(body.charge_id)), []);
    });

    test("a hosted checkout live card attempt: to the upstream's page, back to the checkout, which ends paid and sends the browser to callback_url", async () => {
      const session = currentBody();
      const created = await call(gw.url, '/payment', { key: merchant.live_secret_key, body: session });
      assert.equal(created.status, 201, created.text);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(gw.url);
      assert.equal((await client.get(pagePath)).status, 200);
      const posted = await client.post(`${pagePath}/pay/card`, {
        card_number: TEST_CARD_NUMBERS.visaSuccess,
        expiry: '12/40',
        cvv: MARKED_CVV,
      });
      assert.equal(posted.status, 303, posted.text.slice(0, 300));
      const attemptPath = pathOf(posted.location!);
      const attempt = await client.get(attemptPath);
      assert.equal(attempt.status, 303, 'the attempt page sends the customer on to the acquirer');
      const early = await client.get(`${attemptPath}/return?status=success`);
      assert.equal(early.status, 200, 'back before finishing there: the waiting page, whatever the address says');
      assert.match(early.text, new RegExp(`data-status-url="${attemptPath}/status"`));
      const back = await confirmAtUpstream(attempt.location!);
      assert.ok(back.startsWith(`${gw.url}${attemptPath}/return?`), back);
      const returned = await client.get(pathOf(back));
      assert.equal(returned.status, 303);
      assert.equal(returned.location, `${gw.url}${attemptPath}`, "on to the attempt's outcome");
      const done = await client.get(attemptPath);
      assert.equal(done.status, 303);
      assert.match(done.location ?? '', /^https:\/\/shop\.example\.com\/paid\?order=7&/);
      const verified = await call(gw.url, `/verify-payment/${session.tx_ref}`, { key: merchant.live_secret_key });
      assert.equal(verified.body.data.status, 'success');
      assert.equal(verified.body.data.mode, 'live');
      const [attemptId] = await attemptChargeIds(gw, merchant.id, String(session.tx_ref));
      const attemptCharge = await row(attemptId!);
      assert.equal(attemptCharge.status, 'success');
      const handed = (await upstreamCards()).filter((card) => card.charge_id === attemptCharge.id);
      assert.equal(handed.length, 1, 'the upstream was handed the card once');
      assert.deepEqual(
        [handed[0]!.first_name, handed[0]!.last_name],
        ['Jane', 'Banda'],
        "in the name of the checkout's customer",
      );
    });

    test('the CVV reaches the upstream and is never stored: no row of ours (charges, logs, events) holds it', async () => {
      const dump = await dumpAllTables(gw);
      assert.ok(dump.includes('424242******4242'), 'the live cards of this suite are there (the dump is real)');
      const cvv = new RegExp(`.{0,60}${standalone(MARKED_CVV)}.{0,60}`).exec(dump);
      assert.equal(cvv, null, `no CVV in the database: ${cvv?.[0]}`);
    });
  });
}
