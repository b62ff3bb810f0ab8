import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { settleCollections } from '../../src/ledger/ledger-service.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Mode } from '../../src/shared/ids.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { lipira, type CliResult } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, TIMESTAMP } from '../helpers/fixtures.ts';
import { call, refusedKeyBody, useTestGateway, type ApiResponse } from '../helpers/gateway.ts';
import {
  accountMinor,
  attemptChargeIds,
  chargeBody,
  details,
  eventually,
  fundMainBalance,
  initializeCharge,
  initializePayout,
  merchantWithReceiver,
  payoutBody,
  sortedKeys,
  TEST_NUMBERS,
  testChargeRow,
  verify,
  walletBalance,
} from '../helpers/mobile-money.ts';
import { payByCard, payByMobileMoney } from '../helpers/payments.ts';
import type { Receiver } from '../helpers/receiver.ts';
import {
  paidCharge as paidChargeOf,
  paidLiveCharge,
  refundEnded,
  refundRoutes,
  reserveOf as reserveOfRefund,
} from '../helpers/refunds.ts';

/** The refund as merchants read it (docs/integrate/api-reference.md#refunds). */
const REFUND_KEYS = [
  'amount',
  'charge_id',
  'completed_at',
  'created_at',
  'currency',
  'pending_reason',
  'reason',
  'refund_id',
  'status',
  'trans_id',
];
const REFUNDED_IN_FULL = {
  status: 'failed',
  message: { amount: ['The payment has already been refunded in full.'] },
  data: null,
};
const NOT_FOUND = { status: 'failed', message: 'Transaction not found.', data: null };

for (const kind of DATABASE_KINDS) {
  describe(`refunds on ${kind}`, () => {
    // The balances these scenarios check are those of a refund that keeps the payment's fee, as
    // every refund did before REFUND_RETURNS_FEE; refund-fees-and-waits.test.ts checks the default.
    const ctx = useTestGateway(kind, {
      SANDBOX_MOBILE_DELAY: '150ms',
      WORKER_INTERVAL: '50ms',
      REFUND_RETURNS_FEE: 'off',
    });
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));
    const db = () => ctx.gw.gateway.database.db;

    const { refund, cardRefund, readRefund, listRefunds } = refundRoutes(ctx);
    const verifySession = (key: string, txRef: string) => call(ctx.gw.url, `/verify-payment/${txRef}`, { key });
    const paidCharge = (merchant: MerchantCredentials, amount = 1000) => paidChargeOf(ctx.gw, merchant, amount);

    /** A checkout card attempt left waiting for its one-time code: a charge that stays pending whatever the settler does; its charge_id. */
    async function cardWaitingForItsCode(merchant: MerchantCredentials): Promise<string> {
      const created = await call(ctx.gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody() });
      const client = new CheckoutClient(ctx.gw.url);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      await client.get(pagePath);
      const posted = await client.post(`${pagePath}/pay/card`, {
        card_number: '4242 4242 4242 4242',
        expiry: '12/40',
        cvv: '123',
      });
      assert.equal(posted.status, 303, posted.text.slice(0, 300));
      return new URL(posted.location!).pathname.split('/').pop()!;
    }

    const ended = (key: string, refundId: string) => refundEnded(ctx.gw, key, refundId);
    const reserveOf = (refundId: string) => reserveOfRefund(ctx.gw, refundId);

    const refundRows = (merchantId: string) =>
      db().selectFrom('refunds').selectAll().where('merchant_id', '=', merchantId).execute();
    const ledgerKinds = async (refundRowId: string) =>
      (
        await db()
          .selectFrom('ledger_transactions')
          .select('kind')
          .where('reference', '=', refundRowId)
          .orderBy('created_at')
          .execute()
      ).map((row) => row.kind);
    const merchantAccounts = async (merchantId: string, mode: Mode = 'test') => ({
      collection: await accountMinor(ctx.gw, merchantId, 'collection', mode),
      main: await accountMinor(ctx.gw, merchantId, 'main', mode),
      refundsDue: await accountMinor(ctx.gw, merchantId, 'refunds_due', mode),
    });

    function assertRefundShape(data: Record<string, unknown>): void {
      assert.deepEqual(sortedKeys(data), REFUND_KEYS);
      assert.match(String(data.refund_id), /^rf_[0-9A-Za-z]{20}$/);
      assert.match(String(data.created_at), TIMESTAMP);
      assert.ok(['pending', 'success', 'failed'].includes(String(data.status)));
    }

    test('a checkout payment refunded in full by tx_ref: 201 with the refund, pending until the sandbox completes it, verify shows it, the ledger moves it', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 1000,
      });
      const [chargeId] = await attemptChargeIds(ctx.gw, merchant.id, paid.txRef);
      assert.deepEqual(await merchantAccounts(merchant.id), { collection: 970_00, main: 970_00, refundsDue: 0 });
      const externalBefore = await accountMinor(ctx.gw, 'system', 'external');

      const res = await refund(merchant.test_secret_key, { tx_ref: paid.txRef, reason: 'Out of stock' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Refund initiated successfully.');
      const created = res.body.data;
      assertRefundShape(created);
      assert.equal(created.charge_id, chargeId, 'the charge that paid the session');
      assert.equal(created.amount, 1000, 'no amount: all of it');
      assert.equal(created.currency, 'MWK');
      assert.equal(created.status, 'pending');
      assert.equal(created.reason, 'Out of stock');
      assert.equal(created.completed_at, null);
      // The whole amount leaves the balance at once: the 970 collected first, then 30 from main.
      assert.deepEqual(await reserveOf(created.refund_id), { collection: -970_00, main: -30_00, refunds_due: 1000_00 });
      assert.deepEqual(
        { ...(await merchantAccounts(merchant.id)), refundsDue: 0 },
        { collection: 0, main: 940_00, refundsDue: 0 },
      );

      const done = await ended(merchant.test_secret_key, created.refund_id);
      assert.equal(done.status, 'success');
      assert.match(String(done.completed_at), TIMESTAMP);
      assert.deepEqual(
        { ...done, status: 'pending', trans_id: null, completed_at: null },
        created,
        'the refund read back is the one created',
      );
      assert.deepEqual(await merchantAccounts(merchant.id), { collection: 0, main: 940_00, refundsDue: 0 });
      assert.equal(
        (await accountMinor(ctx.gw, 'system', 'external')) - externalBefore,
        1000_00,
        'the money went back out to the customer',
      );
      const [row] = await refundRows(merchant.id);
      assert.equal(row!.source, 'merchant');
      assert.deepEqual(await ledgerKinds(row!.id), ['refund_reserve', 'refund_complete']);

      const verified = await verifySession(merchant.test_secret_key, paid.txRef);
      assert.equal(verified.body.data.status, 'success', 'a refunded payment stays successful');
      assert.equal(verified.body.data.refunded_amount, 1000);
      assert.equal(verified.body.data.refund_status, 'full');
      const logs = verified.body.data.logs.map((log: { message: string }) => log.message);
      assert.ok(logs.includes(`Refund ${created.refund_id} of MWK 1,000.00 requested: Out of stock`), logs.join(' | '));
      assert.ok(logs.includes(`Refund ${created.refund_id} completed`), logs.join(' | '));
      const charge = await verify(ctx.gw, merchant.test_secret_key, chargeId!);
      assert.equal(charge.body.data.refunded_amount, 1000);
      assert.equal(charge.body.data.refund_status, 'full');

      const listed = await listRefunds(merchant.test_secret_key, `?tx_ref=${paid.txRef}`);
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.message, 'Refunds retrieved successfully.');
      assert.deepEqual(listed.body.data, [done]);
      assert.deepEqual((await listRefunds(merchant.test_secret_key, `?charge_id=${chargeId}`)).body.data, [done]);
      assert.deepEqual((await listRefunds(merchant.test_secret_key)).body.data, [done], 'the latest of the merchant');
      assert.deepEqual((await refund(merchant.test_secret_key, { tx_ref: paid.txRef })).body, REFUNDED_IN_FULL);
    });

    test('a mobile money direct charge refunded in parts by charge_id: partial, then the rest, then nothing left', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const chargeId = await paidCharge(merchant, 1000);
      const first = await refund(merchant.test_secret_key, { charge_id: chargeId, amount: '400' });
      assert.equal(first.status, 201, first.text);
      assertRefundShape(first.body.data);
      assert.equal(first.body.data.amount, 400);
      assert.equal(first.body.data.reason, null);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '970.00', collection: 570 });

      const verified = await verify(ctx.gw, merchant.test_secret_key, chargeId);
      assert.equal(verified.body.data.status, 'success');
      assert.equal(verified.body.data.refunded_amount, 400, 'a pending refund counts: it cannot be refunded twice');
      assert.equal(verified.body.data.refund_status, 'partial');
      const shown = await details(ctx.gw, merchant.test_secret_key, chargeId);
      assert.equal(shown.body.data.refunded_amount, 400);
      assert.equal(shown.body.data.refund_status, 'partial');

      const tooMuch = await refund(merchant.test_secret_key, { charge_id: chargeId, amount: 601 });
      assert.equal(tooMuch.status, 400);
      assert.deepEqual(tooMuch.body, {
        status: 'failed',
        message: { amount: ['The amount must not be greater than 600, what is left to refund.'] },
        data: null,
      });
      const rest = await refund(merchant.test_secret_key, { charge_id: chargeId });
      assert.equal(rest.status, 201, rest.text);
      assert.equal(rest.body.data.amount, 600, 'no amount: what is left');
      assert.deepEqual(
        (await refund(merchant.test_secret_key, { charge_id: chargeId, amount: 1 })).body,
        REFUNDED_IN_FULL,
      );
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '940.00', collection: 0 },
        'the 570 left of the collection, then 30 from main',
      );

      await ended(merchant.test_secret_key, first.body.data.refund_id);
      await ended(merchant.test_secret_key, rest.body.data.refund_id);
      const after = await verify(ctx.gw, merchant.test_secret_key, chargeId);
      assert.equal(after.body.data.refunded_amount, 1000);
      assert.equal(after.body.data.refund_status, 'full');
      const listed = await listRefunds(merchant.test_secret_key, `?charge_id=${chargeId}`);
      assert.deepEqual(
        listed.body.data.map((r: { refund_id: string }) => r.refund_id),
        [rest.body.data.refund_id, first.body.data.refund_id],
        'newest first',
      );
      assert.ok(listed.body.data.every((r: { status: string }) => r.status === 'success'));
    });

    test('POST /charge-card/refund/{charge_id}: a card payment in full with no body (200), or in part; other channels are sent to POST /refunds', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 2000);
      const whole = await payByCard(ctx.gw.url, merchant.test_secret_key, { amount: 1000 });
      const res = await cardRefund(merchant.test_secret_key, whole.chargeId);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assertRefundShape(res.body.data);
      assert.equal(res.body.data.charge_id, whole.chargeId);
      assert.equal(res.body.data.amount, 1000);
      assert.equal((await ended(merchant.test_secret_key, res.body.data.refund_id)).status, 'success');
      assert.equal((await verifySession(merchant.test_secret_key, whole.txRef)).body.data.refund_status, 'full');

      const part = await payByCard(ctx.gw.url, merchant.test_secret_key, { amount: 1000 });
      const partial = await cardRefund(merchant.test_secret_key, part.chargeId, { amount: 250, reason: 'Damaged box' });
      assert.equal(partial.status, 200, partial.text);
      assert.equal(partial.body.data.amount, 250);
      assert.equal(partial.body.data.reason, 'Damaged box');
      const verified = await verifySession(merchant.test_secret_key, part.txRef);
      assert.equal(verified.body.data.refunded_amount, 250);
      assert.equal(verified.body.data.refund_status, 'partial');

      const mobile = await paidCharge(merchant);
      const refused = await cardRefund(merchant.test_secret_key, mobile);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.message, {
        charge_id: ['This payment was not made by card: refund it with POST /refunds.'],
      });
    });

    test('refusals leave no refund and move no money', async () => {
      const merchant = await ctx.gw.newMerchant();
      const key = merchant.test_secret_key;
      await fundMainBalance(ctx.gw, merchant, 5000);
      const paid = await paidCharge(merchant, 1000);
      const pendingCharge = await cardWaitingForItsCode(merchant);
      const failed = chargeBody({ mobile: TEST_NUMBERS.airtelFailed });
      assert.equal((await initializeCharge(ctx.gw, key, failed)).status, 201);
      assert.equal((await verify(ctx.gw, key, String(failed.charge_id), 'failed')).body.data.status, 'failed');
      const payout = payoutBody({ amount: 100 });
      assert.equal((await initializePayout(ctx.gw, key, payout)).status, 201);
      const openSession = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key, body: openSession })).status, 201);
      const before = await merchantAccounts(merchant.id);

      const field = (res: ApiResponse, name: string, message: string) => {
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body, { status: 'failed', message: { [name]: [message] }, data: null });
      };
      assert.deepEqual((await refund(key, { charge_id: 'never-made' })).body, NOT_FOUND);
      assert.equal((await refund(key, { charge_id: 'never-made' })).status, 404);
      assert.deepEqual((await refund(key, { tx_ref: 'never-made' })).body, NOT_FOUND);
      assert.deepEqual((await cardRefund(key, 'never-made')).body, NOT_FOUND);
      field(await refund(key, { charge_id: pendingCharge }), 'charge_id', 'Only a successful payment can be refunded.');
      field(await cardRefund(key, pendingCharge), 'charge_id', 'Only a successful payment can be refunded.');
      field(
        await refund(key, { charge_id: failed.charge_id }),
        'charge_id',
        'Only a successful payment can be refunded.',
      );
      field(await refund(key, { tx_ref: openSession.tx_ref }), 'tx_ref', 'Only a successful payment can be refunded.');
      field(await refund(key, { charge_id: payout.charge_id }), 'charge_id', 'A payout cannot be refunded.');
      field(
        await refund(key, { charge_id: paid, amount: 1001 }),
        'amount',
        'The amount must not be greater than 1000, what is left to refund.',
      );
      field(await refund(key, {}), 'charge_id', 'The charge id field is required when tx ref is not present.');
      field(
        await refund(key, { charge_id: paid, tx_ref: openSession.tx_ref }),
        'charge_id',
        'The charge id field prohibits tx ref from being present.',
      );
      field(await refund(key, { charge_id: paid, amount: 0 }), 'amount', 'The amount must be at least 1.');
      field(await refund(key, { charge_id: paid, amount: '10.5' }), 'amount', 'The amount must be an integer.');
      field(
        await refund(key, { charge_id: paid, reason: 'x'.repeat(501) }),
        'reason',
        'The reason must not be greater than 500 characters.',
      );
      field(await refund(key, { charge_id: 'has space' }), 'charge_id', 'The charge id format is invalid.');
      field(await cardRefund(key, paid, { amount: -5 }), 'amount', 'The amount must be at least 1.');

      assert.deepEqual(await refundRows(merchant.id), []);
      assert.deepEqual(await merchantAccounts(merchant.id), before);
      assert.equal((await testChargeRow(ctx.gw, merchant.id, paid)).refunded_minor, 0);
    });

    test("a refund naming a currency other than its payment's is refused on currency, with no refund and no money moved; the payment's own goes through", async () => {
      const merchant = await ctx.gw.newMerchant();
      const key = merchant.test_secret_key;
      await fundMainBalance(ctx.gw, merchant, 5000);
      const paid = await paidCharge(merchant, 1000);
      const card = await payByCard(ctx.gw.url, key, { amount: 500 });
      const before = await merchantAccounts(merchant.id);
      const refused = {
        status: 'failed',
        message: { currency: ['This payment was made in MWK: it is refunded in MWK only.'] },
        data: null,
      };
      for (const currency of ['USD', 'GBP', 'mwk']) {
        assert.deepEqual((await refund(key, { charge_id: paid, amount: 100, currency })).body, refused, currency);
        assert.deepEqual((await refund(key, { tx_ref: card.txRef, currency })).body, refused, currency);
        assert.deepEqual((await cardRefund(key, card.chargeId, { amount: 100, currency })).body, refused, currency);
      }
      assert.deepEqual(await refundRows(merchant.id), []);
      assert.deepEqual(await merchantAccounts(merchant.id), before);

      const res = await refund(key, { charge_id: paid, amount: 100, currency: 'MWK' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual([res.body.data.amount, res.body.data.currency], [100, 'MWK']);
      assert.equal((await cardRefund(key, card.chargeId, { amount: 100, currency: 'MWK' })).status, 200);
    });

    test('keys: none or a public key is 401 on every refund route; a live key does not see test payments or refunds (404)', async () => {
      const merchant = await ctx.gw.newMerchant();
      const chargeId = await paidCharge(merchant);
      const created = await refund(merchant.test_secret_key, { charge_id: chargeId, amount: 100 });
      assert.equal(created.status, 201, created.text);
      const refundId = created.body.data.refund_id;
      for (const key of [null, merchant.test_public_key, merchant.live_public_key, 'sec-test-not-a-key']) {
        for (const res of [
          await refund(key, { charge_id: chargeId, amount: 100 }),
          await cardRefund(key, chargeId),
          await readRefund(key, refundId),
          await listRefunds(key, `?charge_id=${chargeId}`),
          await listRefunds(key),
        ]) {
          assert.equal(res.status, 401, res.text);
          assert.deepEqual(res.body, refusedKeyBody(key));
        }
      }
      const live = merchant.live_secret_key;
      assert.deepEqual((await refund(live, { charge_id: chargeId, amount: 100 })).body, NOT_FOUND);
      assert.deepEqual((await readRefund(live, refundId)).body, NOT_FOUND);
      assert.deepEqual((await listRefunds(live, `?charge_id=${chargeId}`)).body, NOT_FOUND);
      assert.deepEqual((await listRefunds(live)).body.data, []);
      const other = await ctx.gw.newMerchant('Other Shop');
      assert.deepEqual(
        (await readRefund(other.test_secret_key, refundId)).body,
        NOT_FOUND,
        'nor does another merchant',
      );
      assert.deepEqual((await refund(other.test_secret_key, { charge_id: chargeId })).body, NOT_FOUND);
      assert.equal((await refundRows(merchant.id)).length, 1);
      assert.deepEqual((await listRefunds(merchant.test_secret_key, '?charge_id=x&tx_ref=y')).body.message, {
        charge_id: ['The charge id field prohibits tx ref from being present.'],
      });
      assert.deepEqual((await readRefund(merchant.test_secret_key, 'rf_nothing')).body, NOT_FOUND);
    });

    test('a refund beyond the balance is not refused: it waits, pending with its reason and nothing reserved, until a later payment covers it', async () => {
      const merchant = await ctx.gw.newMerchant();
      const chargeId = await paidCharge(merchant, 1000);
      const before = await merchantAccounts(merchant.id);
      assert.deepEqual(before, { collection: 970_00, main: 0, refundsDue: 0 });
      const res = await refund(merchant.test_secret_key, { charge_id: chargeId });
      assert.equal(res.status, 201, res.text);
      assertRefundShape(res.body.data);
      assert.equal(res.body.data.status, 'pending');
      assert.equal(
        res.body.data.pending_reason,
        'The balance does not cover the MWK 1,000.00 this refund takes from it yet: it goes out when incoming money covers it.',
      );
      assert.deepEqual(await reserveOf(res.body.data.refund_id), {}, 'nothing reserved while it waits');
      assert.deepEqual(await merchantAccounts(merchant.id), before);
      assert.equal((await testChargeRow(ctx.gw, merchant.id, chargeId)).refunded_minor, 1000_00, 'counted: not twice');
      assert.deepEqual(
        (await refund(merchant.test_secret_key, { charge_id: chargeId, amount: 1 })).body,
        REFUNDED_IN_FULL,
      );
      // Settler rounds pass (every 50 ms) and it still waits: nothing covers it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waiting = await readRefund(merchant.test_secret_key, res.body.data.refund_id);
      assert.deepEqual(waiting.body.data, res.body.data);

      await paidCharge(merchant, 100);
      const done = await ended(merchant.test_secret_key, res.body.data.refund_id);
      assert.equal(done.status, 'success', 'covered by the next payment, it went out');
      assert.equal(done.pending_reason, null);
      assert.deepEqual(
        await reserveOf(res.body.data.refund_id),
        { collection: -1000_00, refunds_due: 1000_00 },
        'reserved once, when covered',
      );
      assert.deepEqual(await merchantAccounts(merchant.id), { collection: 67_00, main: 0, refundsDue: 0 });
    });

    test('a refund that fails (no live provider is connected) gives the merchant back exactly what was reserved, where it came from, and may be asked for again', async () => {
      const merchant = await ctx.gw.newMerchant();
      const settledFirst = await paidLiveCharge(ctx.gw, merchant, 1000);
      await settleCollections(db(), Date.now());
      const chargeId = await paidLiveCharge(ctx.gw, merchant, 1000);
      const before = await merchantAccounts(merchant.id, 'live');
      assert.deepEqual(before, { collection: 970_00, main: 970_00, refundsDue: 0 });

      const res = await refund(merchant.live_secret_key, { charge_id: chargeId, reason: 'Wrong size' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(
        await reserveOf(res.body.data.refund_id),
        { collection: -970_00, main: -30_00, refunds_due: 1000_00 },
        'taken from collection first, then main',
      );
      const done = await ended(merchant.live_secret_key, res.body.data.refund_id);
      assert.equal(done.status, 'failed');
      assert.match(String(done.completed_at), TIMESTAMP);
      assert.deepEqual(await merchantAccounts(merchant.id, 'live'), before, 'each account has back what it gave');
      const [row] = await refundRows(merchant.id);
      assert.match(row!.failure_reason ?? '', /not available yet/);
      assert.deepEqual(await ledgerKinds(row!.id), ['refund_reserve', 'refund_release']);
      const verified = await verify(ctx.gw, merchant.live_secret_key, chargeId);
      assert.equal(verified.body.data.refunded_amount, 0, 'a failed refund no longer counts');
      assert.equal(verified.body.data.refund_status, null);
      assert.ok(
        verified.body.data.logs.some((log: { message: string }) =>
          /^Refund rf_\w+ failed: .*; MWK 1,000\.00 went back to the balance$/.test(log.message),
        ),
      );

      // The failure is told to the merchant (live webhooks never go to this loopback receiver: the event is what would be sent).
      const event = await db()
        .selectFrom('events')
        .selectAll()
        .where('subject_id', '=', row!.id)
        .executeTakeFirstOrThrow();
      assert.equal(event.type, 'api.refund');
      const payload = JSON.parse(event.payload);
      assert.equal(payload.status, 'failed');
      assert.match(payload.failure_reason, /not available yet/);
      assert.equal(payload.refunded_amount, 0);
      assert.equal(payload.mode, 'live');
      assert.equal(
        (await db().selectFrom('emails').select('id').where('event_id', '=', event.id).execute()).length,
        0,
        'no receipt for a refund that failed',
      );

      const again = await refund(merchant.live_secret_key, { charge_id: chargeId, amount: 100 });
      assert.equal(again.status, 201, again.text);
      assert.equal((await ended(merchant.live_secret_key, again.body.data.refund_id)).status, 'failed');
      assert.deepEqual(await merchantAccounts(merchant.id, 'live'), before);
      assert.ok(settledFirst);
    });

    test('the webhook: api.refund when a refund succeeds, flat and signed, naming the refund, the charge and the checkout tx_ref', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      await fundMainBalance(ctx.gw, merchant, 1000);
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 1000,
      });
      const [chargeId] = await attemptChargeIds(ctx.gw, merchant.id, paid.txRef);
      await receiver.waitFor(2, 10_000);
      const seen = receiver.received.length;
      const res = await refund(merchant.test_secret_key, { tx_ref: paid.txRef, amount: 300, reason: 'Late delivery' });
      assert.equal(res.status, 201, res.text);
      await receiver.waitFor(seen + 1);
      const request = receiver.received[seen]!;
      const payload = verifyWebhook(request.body, request.headers, merchant.webhook_secret);
      assert.equal(request.headers.signature?.length, 64, 'the PayChangu Signature header too');
      assert.deepEqual(sortedKeys(payload), [
        'amount',
        'authorization',
        'chargeId',
        'charge_id',
        'completed_at',
        'created_at',
        'currency',
        'customization',
        'email',
        'event_type',
        'failure_reason',
        'first_name',
        'last_name',
        'mode',
        'payment_amount',
        'pending_reasons',
        'reason',
        'reference',
        'refund_id',
        'refund_status',
        'refunded_amount',
        'status',
        'trans_id',
        'tx_ref',
        'type',
        'updated_at',
      ]);
      const session = (await verifySession(merchant.test_secret_key, paid.txRef)).body.data;
      assert.equal(payload.event_type, 'api.refund');
      assert.equal(payload.refund_id, res.body.data.refund_id);
      assert.equal(payload.charge_id, chargeId);
      assert.equal(payload.chargeId, chargeId);
      assert.equal(payload.tx_ref, paid.txRef);
      assert.equal(payload.reference, session.reference);
      assert.equal(payload.status, 'success');
      assert.equal(payload.failure_reason, null);
      assert.equal(payload.amount, 300);
      assert.equal(payload.payment_amount, 1000);
      assert.equal(payload.refunded_amount, 300);
      assert.equal(payload.refund_status, 'partial');
      assert.equal(payload.currency, 'MWK');
      assert.equal(payload.reason, 'Late delivery');
      assert.deepEqual(payload.pending_reasons, [], 'it never waited for the balance');
      assert.equal(payload.mode, 'test');
      assert.equal(payload.type, 'Refund');
      assert.equal(payload.email, 'jane@example.com');
      assert.deepEqual(payload.customization, { title: 'Order 7', description: 'Two bags of maize', logo: null });
      assert.equal((payload.authorization as { mobile_number: string }).mobile_number, '+265990xxxx00');
      for (const at of ['created_at', 'completed_at', 'updated_at']) assert.match(String(payload[at]), TIMESTAMP);
      const deliveries = await call(ctx.gw.url, `/webhooks/deliveries?charge_id=${chargeId}`, {
        key: merchant.test_secret_key,
      });
      assert.ok(
        deliveries.body.data.data.some(
          (d: { event_type: string; tx_ref: string }) => d.event_type === 'api.refund' && d.tx_ref === paid.txRef,
        ),
      );

      const direct = await paidCharge(merchant, 500);
      await receiver.waitFor(seen + 2);
      assert.equal((await refund(merchant.test_secret_key, { charge_id: direct, amount: 100 })).status, 201);
      await receiver.waitFor(seen + 3);
      const second = verifyWebhook(
        receiver.received[seen + 2]!.body,
        receiver.received[seen + 2]!.headers,
        merchant.webhook_secret,
      );
      assert.equal(second.event_type, 'api.refund');
      assert.equal(second.charge_id, direct);
      assert.equal(second.tx_ref, null, 'a direct charge has no tx_ref');
      assert.equal(second.customization, null);
    });

    test('a success its session could not count is refunded automatically, counts as refunded, and cannot be refunded again', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: merchant.test_secret_key, body });
      const client = new CheckoutClient(ctx.gw.url);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      await client.get(pagePath);
      assert.equal(
        (await client.post(`${pagePath}/pay/mobile-money`, { mobile: TEST_NUMBERS.airtelSuccess, operator: 'airtel' }))
          .status,
        303,
      );
      assert.equal((await client.post(`${pagePath}/cancel`, {})).status, 303);
      const [chargeId] = await attemptChargeIds(ctx.gw, merchant.id, String(body.tx_ref));
      const automatic = await eventually(
        'the uncounted refund',
        async () => {
          const listed = await listRefunds(merchant.test_secret_key, `?tx_ref=${String(body.tx_ref)}`);
          return listed.body.data[0]?.status === 'success' && listed.body.data[0];
          // Its sandbox completion and the refund worker's rounds come first: on a loaded two-core
          // machine that took over ten seconds once.
        },
        30_000,
      );
      assert.equal(automatic.charge_id, chargeId);
      assert.equal(automatic.amount, 1000);
      assert.equal(automatic.reason, 'the payment had already ended');
      const verified = await verify(ctx.gw, merchant.test_secret_key, chargeId!);
      assert.equal(verified.body.data.refunded_amount, 1000);
      assert.equal(verified.body.data.refund_status, 'full');
      assert.deepEqual((await refund(merchant.test_secret_key, { charge_id: chargeId })).body, REFUNDED_IN_FULL);
      field400(await refund(merchant.test_secret_key, { tx_ref: body.tx_ref }), 'tx_ref');
      assert.equal(
        (
          await db()
            .selectFrom('events')
            .select('id')
            .where('type', '=', 'api.refund')
            .where('merchant_id', '=', merchant.id)
            .execute()
        ).length,
        0,
        'no webhook for a payment the merchant never had',
      );
    });

    for (const kind2 of ['an amount each', 'no amount (all of it) each'] as const) {
      test(`refunds racing for the same payment, ${kind2}: never more than was paid`, async () => {
        const merchant = await ctx.gw.newMerchant();
        await fundMainBalance(ctx.gw, merchant, 5000);
        const chargeId = await paidCharge(merchant, 1000);
        const before = await merchantAccounts(merchant.id);
        const body = kind2 === 'an amount each' ? { charge_id: chargeId, amount: 400 } : { charge_id: chargeId };
        const answers = await Promise.all(Array.from({ length: 6 }, () => refund(merchant.test_secret_key, body)));
        const won = answers.filter((res) => res.status === 201);
        const lost = answers.filter((res) => res.status !== 201);
        assert.equal(won.length, kind2 === 'an amount each' ? 2 : 1, answers.map((res) => res.text).join('\n'));
        for (const res of lost) {
          assert.equal(res.status, 400, res.text);
          assert.ok(
            [
              REFUNDED_IN_FULL.message.amount[0],
              'The amount must not be greater than 200, what is left to refund.',
            ].includes(res.body.message.amount?.[0]),
            res.text,
          );
        }
        const refunded = won.reduce((sum, res) => sum + Number(res.body.data.amount), 0);
        assert.equal((await testChargeRow(ctx.gw, merchant.id, chargeId)).refunded_minor, refunded * 100);
        assert.equal((await refundRows(merchant.id)).length, won.length);
        for (const res of won)
          assert.equal(
            (await reserveOf(res.body.data.refund_id)).refunds_due,
            Number(res.body.data.amount) * 100,
            'each winner set its own amount aside',
          );
        for (const res of won)
          assert.equal((await ended(merchant.test_secret_key, res.body.data.refund_id)).status, 'success');
        const after = await merchantAccounts(merchant.id);
        assert.equal(
          after.collection + after.main,
          before.collection + before.main - refunded * 100,
          'the balance paid for exactly what was refunded',
        );
        assert.equal(after.refundsDue, 0);
      });
    }

    test('lipira refunds create and list: what the API does, from the command line', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 1000,
      });
      const env = { DATABASE_URL: ctx.gw.database.url };
      const base = ['--merchant', merchant.id];

      const created = await lipira(
        [
          'refunds',
          'create',
          '--tx-ref',
          paid.txRef,
          ...base,
          '--amount',
          '250',
          '--reason',
          'Returned by post',
          '--json',
        ],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const view = JSON.parse(created.stdout);
      assertRefundShape(view);
      assert.equal(view.amount, 250);
      assert.equal(view.reason, 'Returned by post');
      assert.deepEqual(
        (await readRefund(merchant.test_secret_key, view.refund_id)).body.data.refund_id,
        view.refund_id,
        'the API reads it',
      );
      assert.equal(
        (await ended(merchant.test_secret_key, view.refund_id)).status,
        'success',
        'the running gateway handed it over',
      );

      const plain = await lipira(['refunds', 'create', '--tx-ref', paid.txRef, ...base, '--amount', '100'], env);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(
        plain.stdout,
        /^Refund rf_\w{20} of MWK 100 for charge ch_\w+ is pending: a running gateway hands it to the provider\.$/m,
      );

      const listed = await lipira(['refunds', 'list', ...base, '--tx-ref', paid.txRef, '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout);
      assert.deepEqual(
        rows.map((row: { amount: number }) => row.amount),
        [100, 250],
        'newest first',
      );
      rows.forEach(assertRefundShape);
      const text = await lipira(['refunds', 'list', ...base], env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(`^${view.refund_id}  \\S+  success  MWK 250  ch_\\w+  Returned by post$`, 'm'),
      );
      assert.equal((await lipira(['refunds', 'list', ...base, '--mode', 'live'], env)).stdout.trim(), 'No refunds.');

      const refused = (result: CliResult, code: number, pattern: RegExp) => {
        assert.equal(result.code, code, result.stdout + result.stderr);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.match(result.stderr, pattern);
      };
      refused(
        await lipira(['refunds', 'create', '--tx-ref', paid.txRef, ...base, '--amount', '651'], env),
        1,
        /^lipira: The amount must not be greater than 650, what is left to refund\.$/m,
      );
      refused(
        await lipira(['refunds', 'create', '--tx-ref', paid.txRef, ...base, '--mode', 'live'], env),
        1,
        /Transaction not found\./,
      );
      refused(
        await lipira(['refunds', 'create', '--tx-ref', paid.txRef, '--merchant', 'mer_missing'], env),
        1,
        /no merchant with id "mer_missing"/,
      );
      refused(await lipira(['refunds', 'create', ...base], env), 2, /one of --charge-id or --tx-ref is required/);
      refused(
        await lipira(['refunds', 'create', '--tx-ref', paid.txRef, '--charge-id', 'x', ...base], env),
        2,
        /not both/,
      );
      refused(
        await lipira(['refunds', 'create', '--tx-ref', paid.txRef, ...base, '--amount', '10.5'], env),
        2,
        /--amount must be a whole number/,
      );
      refused(await lipira(['refunds', 'create', '--tx-ref', paid.txRef], env), 2, /--merchant is required/);
      refused(await lipira(['refunds', 'list', ...base, '--mode', 'staging'], env), 2, /--mode must be test or live/);
      refused(await lipira(['refunds', 'undo'], env), 2, /usage: lipira refunds create/);
      assert.equal((await refundRows(merchant.id)).length, 2, 'refusals left nothing');
    });

    test('a refund racing a payout for the same main balance: the payout is refused or the refund waits, nothing is spent twice', async () => {
      for (let round = 0; round < 3; round++) {
        const merchant = await ctx.gw.newMerchant();
        await fundMainBalance(ctx.gw, merchant, 1000);
        const chargeId = (
          await db()
            .selectFrom('charges')
            .select('charge_id')
            .where('merchant_id', '=', merchant.id)
            .executeTakeFirstOrThrow()
        ).charge_id;
        assert.deepEqual(await merchantAccounts(merchant.id), { collection: 0, main: 970_00, refundsDue: 0 });
        const [refunded, paidOut] = await Promise.all([
          refund(merchant.test_secret_key, { charge_id: chargeId, amount: 600 }),
          initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 500 })),
        ]);
        assert.equal(refunded.status, 201, refunded.text);
        const accounts = await merchantAccounts(merchant.id);
        if (refunded.body.data.pending_reason === null) {
          assert.equal(paidOut.status, 400, paidOut.text);
          assert.deepEqual(paidOut.body.message, { amount: ['The amount and its fee exceed the available balance.'] });
          assert.equal(accounts.main, 370_00, '970 less the refund of 600');
          assert.ok([600_00, 0].includes(accounts.refundsDue), 'held for the customer until the refund completes');
        } else {
          assert.equal(paidOut.status, 201, paidOut.text);
          assert.deepEqual(await reserveOf(refunded.body.data.refund_id), {}, 'the waiting refund took nothing');
          assert.deepEqual(
            accounts,
            { collection: 0, main: 465_00, refundsDue: 0 },
            '970 less the payout of 500 and its fee of 5',
          );
        }
      }
    });
  });
}

function field400(res: ApiResponse, name: string): void {
  assert.equal(res.status, 400, res.text);
  assert.deepEqual(Object.keys(res.body.message), [name]);
}
