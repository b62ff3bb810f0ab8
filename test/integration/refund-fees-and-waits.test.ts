import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { loadConfig } from '../../src/config.ts';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { BEHIND_EARLIER_REFUNDS, releaseCoveredRefunds } from '../../src/refunds/refund-waits.ts';
import { formatHumanDate } from '../../src/shared/time.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { TIMESTAMP } from '../helpers/fixtures.ts';
import { call, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  eventually,
  initializePayout,
  merchantWithReceiver,
  payoutBody,
  walletBalance,
} from '../helpers/mobile-money.ts';
import { payByCard } from '../helpers/payments.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { paidCharge, paidLiveCharge, refundEnded, refundRoutes, reserveOf } from '../helpers/refunds.ts';

const REFUNDED_IN_FULL = {
  status: 'failed',
  message: { amount: ['The payment has already been refunded in full.'] },
  data: null,
};

/** Why a refund of `amount` (MWK, all of it from the balance) waits when it is first in line. */
const balanceShort = (amount: string) =>
  `The balance does not cover the MWK ${amount} this refund takes from it yet: it goes out when incoming money covers it.`;

/** A merchant's accounts that refunds move money between, in minor units. */
async function accounts(gw: TestGateway, merchantId: string, mode: 'test' | 'live' = 'test') {
  return {
    collection: await accountMinor(gw, merchantId, 'collection', mode),
    main: await accountMinor(gw, merchantId, 'main', mode),
    refundsDue: await accountMinor(gw, merchantId, 'refunds_due', mode),
  };
}

/** What a refund row holds of the fee and its wait, by its public id. */
function refundRow(gw: TestGateway, refundId: string) {
  return gw.gateway.database.db
    .selectFrom('refunds')
    .select(['id', 'fee_returned_minor', 'pending_reason', 'pending_reasons', 'status'])
    .where('refund_id', '=', refundId)
    .executeTakeFirstOrThrow();
}

for (const kind of DATABASE_KINDS) {
  describe(`refunds with the defaults (test payments settled at once, the fee's share given back) on ${kind}`, () => {
    const ctx = useTestGateway(kind, {
      TEST_SETTLEMENT: 'immediate',
      SANDBOX_MOBILE_DELAY: '150ms',
      WORKER_INTERVAL: '50ms',
    });
    const { refund, cardRefund } = refundRoutes(ctx);
    const system = (kindOf: 'fees' | 'external', mode: 'test' | 'live' = 'test') =>
      accountMinor(ctx.gw, 'system', kindOf, mode);

    test("a merchant's first card payment of MWK 1,000, refunded in full right after it succeeded, goes through: settled at once, its fee comes back with it", async () => {
      const merchant = await ctx.gw.newMerchant();
      const card = await payByCard(ctx.gw.url, merchant.test_secret_key, { amount: 1000 });
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '970.00', collection: 0 },
        'the payment, less its fee, is in the main balance at once',
      );
      const [feesBefore, externalBefore] = [await system('fees'), await system('external')];

      const res = await cardRefund(merchant.test_secret_key, card.chargeId);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.amount, 1000);
      assert.equal(res.body.data.status, 'pending');
      assert.equal(res.body.data.pending_reason, null, 'nothing to wait for');
      assert.deepEqual(
        await reserveOf(ctx.gw, res.body.data.refund_id),
        { main: -970_00, refunds_due: 970_00 },
        'the balance gives the refund less the 30 of fee it gets back',
      );
      assert.equal((await refundRow(ctx.gw, res.body.data.refund_id)).fee_returned_minor, 30_00);

      assert.equal((await refundEnded(ctx.gw, merchant.test_secret_key, res.body.data.refund_id)).status, 'success');
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 0, refundsDue: 0 });
      assert.equal((await system('fees')) - feesBefore, -30_00, 'the fee went back from the fees account');
      assert.equal((await system('external')) - externalBefore, 1000_00, 'the customer got all 1,000 back');

      const browser = await signedInBrowser(ctx.gw, 'viewer', merchant.id);
      assert.match(
        (await browser.get('/dashboard/balance')).text,
        /<p class="settlement">Test payments settle at once: they are credited to the main balance as they succeed\.<\/p>/,
      );
    });

    test("a payment refunded in three parts gives back each part's share of the fee, rounded down, and exactly the fee in all", async () => {
      const merchant = await ctx.gw.newMerchant();
      await updateMerchantSettings(ctx.gw.gateway.database.db, merchant.id, { feeBasisPoints: 175 }, Date.now());
      const chargeId = await paidCharge(ctx.gw, merchant, 1001);
      assert.equal(
        (await accounts(ctx.gw, merchant.id)).main,
        1001_00 - 17_52,
        'a fee of 1.75 % of 1,001: 17.5175, 17.52',
      );
      const feesBefore = await system('fees');

      const parts: string[] = [];
      for (const amount of [333, 333, undefined]) {
        const res = await refund(merchant.test_secret_key, { charge_id: chargeId, amount });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.data.pending_reason, null);
        parts.push(res.body.data.refund_id);
      }
      assert.deepEqual(
        (await refund(merchant.test_secret_key, { charge_id: chargeId, amount: 1 })).body,
        REFUNDED_IN_FULL,
      );
      const shares = await Promise.all(parts.map(async (id) => (await refundRow(ctx.gw, id)).fee_returned_minor));
      // 17.52 × 333 / 1,001 = 5.828…, 5.82 rounded down; × 666 / 1,001 = 11.656…, 11.65 less the 5.82
      // already given back; and the part that completes the whole, the rest of the fee.
      assert.deepEqual(shares, [5_82, 5_83, 5_87]);
      assert.equal(
        shares.reduce((sum, share) => sum + share, 0),
        17_52,
        'the parts give back exactly the fee',
      );
      assert.deepEqual(await Promise.all(parts.map((id) => reserveOf(ctx.gw, id))), [
        { main: -(333_00 - 5_82), refunds_due: 333_00 - 5_82 },
        { main: -(333_00 - 5_83), refunds_due: 333_00 - 5_83 },
        { main: -(335_00 - 5_87), refunds_due: 335_00 - 5_87 },
      ]);
      for (const id of parts) assert.equal((await refundEnded(ctx.gw, merchant.test_secret_key, id)).status, 'success');
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 0, refundsDue: 0 });
      assert.equal((await system('fees')) - feesBefore, -17_52);
    });

    test('a refund that fails gives the balance back what it took, and the fee stays with the gateway; asked again, it gives the share again', async () => {
      const merchant = await ctx.gw.newMerchant();
      const chargeId = await paidLiveCharge(ctx.gw, merchant, 1000);
      const before = await accounts(ctx.gw, merchant.id, 'live');
      assert.deepEqual(before, { collection: 970_00, main: 0, refundsDue: 0 });
      const feesBefore = await system('fees', 'live');
      for (const amount of [500, undefined]) {
        const res = await refund(merchant.live_secret_key, { charge_id: chargeId, amount });
        assert.equal(res.status, 201, res.text);
        const { fee_returned_minor: share } = await refundRow(ctx.gw, res.body.data.refund_id);
        assert.equal(
          share,
          amount === 500 ? 15_00 : 30_00,
          'a failed refund gave back no share: the next counts it all',
        );
        assert.equal((await refundEnded(ctx.gw, merchant.live_secret_key, res.body.data.refund_id)).status, 'failed');
        assert.deepEqual(await accounts(ctx.gw, merchant.id, 'live'), before, 'each account has back what it gave');
        assert.equal(await system('fees', 'live'), feesBefore, 'the fee was not given back');
      }
    });
  });

  describe(`refunds with test payments settled a day later (TEST_SETTLEMENT=24h) on ${kind}`, () => {
    const ctx = useTestGateway(kind, { TEST_SETTLEMENT: '24h', WORKER_INTERVAL: '50ms' });
    const { cardRefund } = refundRoutes(ctx);

    test('the MWK 1,000 card payment refunded in full right after it succeeded goes through from the collection balance', async () => {
      const merchant = await ctx.gw.newMerchant();
      const card = await payByCard(ctx.gw.url, merchant.test_secret_key, { amount: 1000 });
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 970_00, main: 0, refundsDue: 0 });
      const res = await cardRefund(merchant.test_secret_key, card.chargeId);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.pending_reason, null);
      assert.deepEqual(await reserveOf(ctx.gw, res.body.data.refund_id), { collection: -970_00, refunds_due: 970_00 });
      assert.equal((await refundEnded(ctx.gw, merchant.test_secret_key, res.body.data.refund_id)).status, 'success');
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 0, refundsDue: 0 });
    });
  });

  describe(`refunds the balance cannot cover (the fee kept, REFUND_RETURNS_FEE=off) on ${kind}`, () => {
    const ctx = useTestGateway(kind, {
      REFUND_RETURNS_FEE: 'off',
      TEST_SETTLEMENT: 'immediate',
      SANDBOX_MOBILE_DELAY: '150ms',
      WORKER_INTERVAL: '50ms',
    });
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));
    const { refund, cardRefund, readRefund, listRefunds } = refundRoutes(ctx);
    const logsOf = async (key: string, txRef: string): Promise<string[]> =>
      (await call(ctx.gw.url, `/verify-payment/${txRef}`, { key })).body.data.logs.map(
        (log: { message: string }) => log.message,
      );

    test('the MWK 1,000 card payment refunded in full waits, pending with its reason, until a later payment covers it; then it goes out once, and its webhook says what it waited for', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const key = merchant.test_secret_key;
      const card = await payByCard(ctx.gw.url, key, { amount: 1000 });
      await receiver.waitFor(1);
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 970_00, refundsDue: 0 });

      const res = await cardRefund(key, card.chargeId);
      assert.equal(res.status, 200, res.text);
      const waiting = res.body.data;
      assert.equal(waiting.status, 'pending');
      assert.equal(waiting.pending_reason, balanceShort('1,000.00'));
      assert.deepEqual(await reserveOf(ctx.gw, waiting.refund_id), {}, 'nothing reserved');
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 970_00, refundsDue: 0 });
      assert.deepEqual((await readRefund(key, waiting.refund_id)).body.data, waiting);
      assert.deepEqual((await listRefunds(key, `?charge_id=${card.chargeId}`)).body.data, [waiting]);
      assert.ok(
        (await logsOf(key, card.txRef)).includes(`Refund ${waiting.refund_id} waits: ${balanceShort('1,000.00')}`),
        'verification shows why it waits',
      );
      assert.deepEqual((await cardRefund(key, card.chargeId, { amount: 1 })).body, REFUNDED_IN_FULL, 'it counts');

      await sleep(300); // several settler rounds: nothing covers it yet
      assert.deepEqual((await readRefund(key, waiting.refund_id)).body.data, waiting);
      assert.equal(receiver.received.length, 1, 'no webhook while it waits');

      await payByCard(ctx.gw.url, key, { amount: 100 });
      const done = await refundEnded(ctx.gw, key, waiting.refund_id);
      assert.equal(done.status, 'success');
      assert.equal(done.pending_reason, null);
      assert.deepEqual(await reserveOf(ctx.gw, waiting.refund_id), { main: -1000_00, refunds_due: 1000_00 });
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 67_00, refundsDue: 0 });
      const logs = await logsOf(key, card.txRef);
      assert.ok(logs.includes(`Refund ${waiting.refund_id} no longer waits: the balance covers it`), logs.join(' | '));
      assert.ok(logs.includes(`Refund ${waiting.refund_id} completed`), logs.join(' | '));

      const [request] = await eventually('the api.refund webhook', async () => {
        const found = receiver.received.filter((one) => JSON.parse(one.body).event_type === 'api.refund');
        return found.length > 0 && found;
      });
      const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
      assert.equal(payload.refund_id, waiting.refund_id);
      assert.equal(payload.status, 'success');
      const reasons = payload.pending_reasons as Array<{ reason: string; since: string; until: string }>;
      assert.equal(reasons.length, 1);
      assert.equal(reasons[0]!.reason, balanceShort('1,000.00'));
      assert.equal(reasons[0]!.since, waiting.created_at);
      assert.match(reasons[0]!.until, TIMESTAMP);
      assert.ok(reasons[0]!.until > reasons[0]!.since, 'it waited from its request until the money came');
    });

    test('waiting refunds go out in the order they were asked for: a later one, however small, waits behind, and says why until it is first', async () => {
      const merchant = await ctx.gw.newMerchant();
      const key = merchant.test_secret_key;
      const first = await paidCharge(ctx.gw, merchant, 1000);
      const second = await paidCharge(ctx.gw, merchant, 1000);
      assert.equal((await initializePayout(ctx.gw, key, payoutBody({ amount: 1900 }))).status, 201);
      assert.equal((await accounts(ctx.gw, merchant.id)).main, 21_00, '1,940 less 1,900 and its fee of 19');

      const asked = [];
      for (const body of [
        { charge_id: first },
        { charge_id: second, amount: 500 },
        { charge_id: second, amount: 10 },
      ]) {
        const res = await refund(key, body);
        assert.equal(res.status, 201, res.text);
        asked.push(res.body.data);
      }
      const [whole, half, small] = asked;
      assert.equal(whole.pending_reason, balanceShort('1,000.00'));
      assert.equal(half.pending_reason, BEHIND_EARLIER_REFUNDS);
      assert.equal(small.pending_reason, BEHIND_EARLIER_REFUNDS, 'the 21 would cover 10, but earlier refunds go first');
      await sleep(300);
      assert.equal((await readRefund(key, small.refund_id)).body.data.pending_reason, BEHIND_EARLIER_REFUNDS);

      await paidCharge(ctx.gw, merchant, 1100);
      assert.equal((await refundEnded(ctx.gw, key, whole.refund_id)).status, 'success');
      await eventually('the second to be told the balance is what it waits for', async () => {
        const shown = (await readRefund(key, half.refund_id)).body.data;
        return shown.pending_reason === balanceShort('500.00');
      });
      assert.equal((await readRefund(key, small.refund_id)).body.data.pending_reason, BEHIND_EARLIER_REFUNDS);
      assert.equal((await accounts(ctx.gw, merchant.id)).main, 88_00, '21 + 1,067 less the 1,000 that went out');

      await paidCharge(ctx.gw, merchant, 500);
      for (const one of [half, small]) assert.equal((await refundEnded(ctx.gw, key, one.refund_id)).status, 'success');
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 63_00, refundsDue: 0 });
      const reasons = JSON.parse((await refundRow(ctx.gw, half.refund_id)).pending_reasons!) as Array<{
        reason: string;
      }>;
      assert.deepEqual(
        reasons.map((entry) => entry.reason),
        [BEHIND_EARLIER_REFUNDS, balanceShort('500.00')],
        'every reason it waited for, in turn',
      );
    });
  });

  describe(`waiting refunds released by several settlers at once on ${kind}`, () => {
    // No workers: the test runs the settlers' release itself, several at once.
    const ctx = useTestGateway(kind, { WORKERS: 'off', REFUND_RETURNS_FEE: 'off', TEST_SETTLEMENT: 'immediate' });
    const { refund } = refundRoutes(ctx);

    test("money that covers two of three waiting refunds releases exactly the two oldest, once each, however many settlers try at once; another merchant's refund that nothing covers holds up no one", async () => {
      const stuck = await ctx.gw.newMerchant('Stuck Shop');
      const stuckRefund = await refund(stuck.test_secret_key, { charge_id: await paidCharge(ctx.gw, stuck, 1000) });
      assert.equal(stuckRefund.body.data.pending_reason, balanceShort('1,000.00'));
      const merchant = await ctx.gw.newMerchant();
      const key = merchant.test_secret_key;
      const chargeId = await paidCharge(ctx.gw, merchant, 1000);
      assert.equal((await initializePayout(ctx.gw, key, payoutBody({ amount: 900 }))).status, 201);
      assert.equal((await accounts(ctx.gw, merchant.id)).main, 61_00);
      const asked = await Promise.all(
        [1, 2, 3].map(() => refund(key, { charge_id: chargeId, amount: 300 }).then((res) => res.body.data)),
      );
      assert.ok(
        asked.every((one) => one.status === 'pending' && one.pending_reason !== null),
        JSON.stringify(asked),
      );
      await paidCharge(ctx.gw, merchant, 700);
      assert.equal((await accounts(ctx.gw, merchant.id)).main, 740_00, 'enough for two of them');

      const deps = paymentDeps(loadConfig({ REFUND_RETURNS_FEE: 'off' }), ctx.gw.gateway.database);
      // One at a time (a limit of 1): the older refund nothing covers is not even looked at.
      const released = await Promise.all(Array.from({ length: 6 }, () => releaseCoveredRefunds(deps, 1)));
      assert.equal(
        released.reduce((sum, count) => sum + count, 0),
        2,
        `each settler's count: ${released.join(', ')}`,
      );
      assert.deepEqual(await accounts(ctx.gw, merchant.id), { collection: 0, main: 140_00, refundsDue: 600_00 });
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('refunds')
        .select(['refund_id', 'pending_reason'])
        .where('merchant_id', '=', merchant.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => row.pending_reason === null),
        [true, true, false],
        'the two asked for first went out',
      );
      for (const row of rows.slice(0, 2))
        assert.deepEqual(await reserveOf(ctx.gw, row.refund_id), { main: -300_00, refunds_due: 300_00 });
      assert.equal(rows[2]!.pending_reason, balanceShort('300.00'));
      assert.equal(await releaseCoveredRefunds(deps, 100), 0, 'nothing more to release');
      const stillStuck = (await refundRoutes(ctx).readRefund(stuck.test_secret_key, stuckRefund.body.data.refund_id))
        .body.data;
      assert.equal(stillStuck.pending_reason, balanceShort('1,000.00'));
    });
  });

  describe(`settlement on each mode's own schedule on ${kind}`, () => {
    const ctx = useTestGateway(kind, { TEST_SETTLEMENT: '300ms', WORKER_INTERVAL: '50ms' });

    test('test collections settle every TEST_SETTLEMENT while live ones wait for SETTLEMENT_INTERVAL; the balance page says when each mode settles next', async () => {
      const merchant = await ctx.gw.newMerchant();
      await paidLiveCharge(ctx.gw, merchant, 1000);
      await paidCharge(ctx.gw, merchant, 1000);
      await eventually(
        'the test collection to settle',
        async () => (await accounts(ctx.gw, merchant.id)).main === 970_00,
      );
      assert.equal((await accounts(ctx.gw, merchant.id)).collection, 0);
      await sleep(700); // two more test settlements
      assert.deepEqual(
        await accounts(ctx.gw, merchant.id, 'live'),
        { collection: 970_00, main: 0, refundsDue: 0 },
        'live money waits its day',
      );

      const browser = await signedInBrowser(ctx.gw, 'viewer', merchant.id);
      assert.match(
        (await browser.get('/dashboard/balance')).text,
        // Due now, if the page came between the interval's end and the worker's next look.
        /<p class="settlement">Collected money moves to main every 300 milliseconds\. (Next settlement: |The next settlement is due now)/,
      );
      assert.equal((await browser.post('/dashboard/mode', { mode: 'live', back: '/dashboard/balance' })).status, 303);
      const marker = await ctx.gw.gateway.database.db
        .selectFrom('app_state')
        .select('value')
        .where('key', '=', 'last_settlement_at')
        .executeTakeFirstOrThrow();
      const next = formatHumanDate(Number(marker.value) + 86_400_000, 'Africa/Blantyre');
      assert.ok(next.endsWith(' CAT'), next);
      assert.ok(
        (await browser.get('/dashboard/balance')).text.includes(
          `<p class="settlement">Collected money moves to main every 24 hours. Next settlement: ${next}.</p>`,
        ),
        `the next live settlement, ${next}, in the gateway's time zone`,
      );
    });
  });
}
