import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { claimAttemptSlot, markPaid } from '../../src/core/session-repository.ts';
import { createSession } from '../../src/checkout/checkout-service.ts';
import { loadConfig } from '../../src/config.ts';
import { checkLedger, creditCollection, reservePayout, settleCollections } from '../../src/ledger/ledger-service.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { initializeBankPayout } from '../../src/payouts/bank-payouts.ts';
import { movementOf } from '../../src/payouts/payout-reservation.ts';
import { NBM_UUID } from '../helpers/bank-payouts.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { TIMESTAMP } from '../helpers/fixtures.ts';
import { assertFieldError, call, useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  AIRTEL_REF,
  chargeBody,
  chargeRows,
  details,
  DETAILS_KEYS,
  eventually,
  fundMainBalance,
  initializeCharge,
  initializePayout,
  ledgerKindsFor,
  merchantWithReceiver,
  payoutBody,
  settledByWorker,
  sortedKeys,
  TEST_NUMBERS,
  testChargeRow,
  TNM_REF,
  TYPED_KEYS,
  verify,
  VERIFY_KEYS,
  walletBalance,
} from '../helpers/mobile-money.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { fakeClock } from '../helpers/clock.ts';
import { asChargeRef } from '../../src/shared/ids.ts';

const INSUFFICIENT = {
  status: 'failed',
  message: { amount: ['The amount and its fee exceed the available balance.'] },
  data: null,
};
const AIRTEL_MONEY = { name: 'Airtel Money', ref_id: AIRTEL_REF, country: 'Malawi' };

const outbox = temporaryFolder('lipira-outbox-');
after(() => outbox.remove());

for (const kind of DATABASE_KINDS) {
  describe(`payouts, balances and the ledger on ${kind}`, () => {
    const ctx = useTestGateway(kind, {
      SANDBOX_MOBILE_DELAY: '150ms',
      WORKER_INTERVAL: '50ms',
      OUTBOX_DIR: outbox.dir,
    });
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));
    const db = () => ctx.gw.gateway.database.db;
    const env = () => ({ DATABASE_URL: ctx.gw.database.url });

    /** A direct charge that the sandbox ends successfully on its own (after its delay). */
    async function collect(key: string, merchantId: string, amount: number): Promise<void> {
      const body = chargeBody({ amount });
      assert.equal((await initializeCharge(ctx.gw, key, body)).status, 201);
      assert.equal((await settledByWorker(ctx.gw, merchantId, String(body.charge_id))).status, 'success');
    }

    test('GET /wallet-balance answers environment, currency, main_balance as decimal text and collection_balance as a number', async () => {
      const merchant = await ctx.gw.newMerchant();
      const res = await call(ctx.gw.url, '/wallet-balance?currency=MWK', { key: merchant.test_secret_key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.deepEqual(res.body, {
        status: 'success',
        message: 'Wallet balances retrieved successfully',
        data: { environment: 'test', currency: 'MWK', main_balance: '0.00', collection_balance: 0 },
      });
      assert.deepEqual(sortedKeys(res.body.data), ['collection_balance', 'currency', 'environment', 'main_balance']);
      await collect(merchant.test_secret_key, merchant.id, 1234);
      const after = await call(ctx.gw.url, '/wallet-balance?currency=MWK', { key: merchant.test_secret_key });
      assert.equal(typeof after.body.data.main_balance, 'string');
      assert.equal(typeof after.body.data.collection_balance, 'number');
      assert.equal(after.body.data.collection_balance, 1196.98, '1234 less its 3 % fee of 37.02');
      assert.equal(
        (await call(ctx.gw.url, '/wallet-balance', { key: merchant.test_secret_key })).body.data.currency,
        'MWK',
        'MWK by default',
      );
      const gbp = await call(ctx.gw.url, '/wallet-balance?currency=GBP', { key: merchant.test_secret_key });
      assert.deepEqual(gbp.body.data, {
        environment: 'test',
        currency: 'GBP',
        main_balance: '0.00',
        collection_balance: 0,
      });
      assertFieldError(
        await call(ctx.gw.url, '/wallet-balance?currency=XYZ', { key: merchant.test_secret_key }),
        'currency',
        'The selected currency is invalid.',
      );
      const live = await call(ctx.gw.url, '/wallet-balance?currency=MWK', { key: merchant.live_secret_key });
      assert.deepEqual(live.body.data, {
        environment: 'live',
        currency: 'MWK',
        main_balance: '0.00',
        collection_balance: 0,
      });
      assert.equal((await call(ctx.gw.url, '/wallet-balance?currency=MWK')).status, 401);
    });

    test('a collection credits the merchant net of the fee and the fee account with the fee', async () => {
      const merchant = await ctx.gw.newMerchant();
      const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
      const externalBefore = await accountMinor(ctx.gw, 'system', 'external');
      const body = chargeBody({ amount: 1000 });
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const charge = await settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
      assert.equal(charge.fee_minor, 30_00);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 970 });
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 970_00);
      assert.equal((await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore, 30_00);
      assert.equal(
        (await accountMinor(ctx.gw, 'system', 'external')) - externalBefore,
        -1000_00,
        'the money came in from outside',
      );
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), ['collection']);
      const entries = await db()
        .selectFrom('ledger_entries')
        .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
        .select(['ledger_entries.amount_minor'])
        .where('ledger_transactions.reference', '=', charge.id)
        .execute();
      assert.deepEqual(
        entries.map((e) => Number(e.amount_minor)).sort((a, b) => a - b),
        [-1000_00, 30_00, 970_00],
      );
      // A paid checkout credits the same ledger.
      await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 1940 });
      assert.equal((await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore, 60_00);
      const fees = await db()
        .selectFrom('ledger_accounts')
        .select(['owner', 'kind', 'mode', 'currency'])
        .where('owner', '=', 'system')
        .where('kind', '=', 'fees')
        .execute();
      assert.deepEqual(fees, [{ owner: 'system', kind: 'fees', mode: 'test', currency: 'MWK' }]);
    });

    test('a failed collection moves no money', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = chargeBody({ mobile: TEST_NUMBERS.tnmFailed, mobile_money_operator_ref_id: TNM_REF });
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const charge = await settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
      assert.equal(charge.status, 'failed');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), []);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 0 });
    });

    test('settlement moves the collection balance to the main balance, once', async () => {
      const merchant = await ctx.gw.newMerchant();
      await collect(merchant.test_secret_key, merchant.id, 1000);
      await collect(merchant.test_secret_key, merchant.id, 500);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 1455 });
      assert.ok((await settleCollections(db(), Date.now())) >= 1);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '1455.00', collection: 0 });
      await settleCollections(db(), Date.now());
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '1455.00', collection: 0 },
        'nothing moves twice',
      );
    });

    test('lipira ledger settle does the same through the CLI', async () => {
      const merchant = await ctx.gw.newMerchant();
      await collect(merchant.test_secret_key, merchant.id, 2000);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 1940 });
      const settled = await lipira(['ledger', 'settle'], env());
      assert.equal(settled.code, 0, settled.stderr);
      assert.match(settled.stdout, /^Settled [1-9]\d* collection account\(s\) into main balances\.$/m);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '1940.00', collection: 0 });
      const again = await lipira(['ledger', 'settle'], env());
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^Settled 0 collection account\(s\)/m);
      const check = await lipira(['ledger', 'check'], env());
      assert.equal(check.code, 0, check.stderr);
      assert.match(check.stdout, /Ledger OK/);
      assert.equal(check.stderr, '');
    });

    test('a payout answers 201 with its record; the main balance goes down by the amount plus the 1 % fee', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 2000);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '1940.00', collection: 0 });
      const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
      const body = payoutBody({ amount: '1000' });
      const res = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Payout processed successfully.');
      const data = res.body.data;
      assert.deepEqual(sortedKeys(data), TYPED_KEYS);
      assert.equal(data.amount, 1000);
      assert.equal(data.charge_id, body.charge_id);
      assert.match(data.ref_id, /^\d{11}$/);
      assert.equal(typeof data.trans_id, 'string');
      assert.equal(data.first_name, null, 'payout records carry no customer');
      assert.equal(data.last_name, null);
      assert.equal(data.email, null);
      assert.equal(data.status, 'success');
      assert.equal(data.mobile, '+265990xxxx00');
      assert.equal(data.attempts, 1);
      assert.equal(data.currency, 'MWK');
      assert.equal(data.mode, 'sandbox');
      assert.match(data.created_at, TIMESTAMP);
      assert.match(data.completed_at, TIMESTAMP);
      assert.deepEqual(data.mobile_money, AIRTEL_MONEY);
      assert.equal(data.type, 'API Payout');
      assert.equal(data.event_type, 'api.payout');
      assert.deepEqual(data.transaction_charges, { currency: 'MWK', amount: '10.00' });
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '930.00', collection: 0 });
      assert.equal((await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore, 10_00, 'the payout fee is earned');
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0, 'nothing stays reserved');
      const payout = await testChargeRow(ctx.gw, merchant.id, String(body.charge_id));
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_complete']);
    });

    test('payout details: type "API Payout", event_type "api.payout", transaction_charges, null customer, and what verify shows', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const body = payoutBody({ amount: 500 });
      const created = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(created.status, 201, created.text);
      const res = await details(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Transaction retrieved successfully.');
      assert.deepEqual(sortedKeys(res.body.data), DETAILS_KEYS);
      for (const field of TYPED_KEYS)
        assert.deepEqual(
          res.body.data[field],
          created.body.data[field],
          `details show the ${field} initialize answered`,
        );
      assert.equal(res.body.data.trace_id, null);
      assert.equal(res.body.data.type, 'API Payout');
      assert.equal(res.body.data.event_type, 'api.payout');
      assert.deepEqual(res.body.data.transaction_charges, { currency: 'MWK', amount: '5.00' });
      assert.equal(res.body.data.first_name, null);
      assert.equal(res.body.data.last_name, null);
      assert.equal(res.body.data.email, null);
      const verified = await verify(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(verified.status, 200);
      assert.equal(verified.body.status, 'successful');
      assert.deepEqual(sortedKeys(verified.body.data), VERIFY_KEYS);
      assert.equal(verified.body.data.type, 'API Payout');
      const { trace_id: _traceId, ...shown } = res.body.data;
      assert.deepEqual(shown, verified.body.data, 'details show what verify shows, authorization and logs included');
      assert.equal(
        (await details(ctx.gw, merchant.live_secret_key, String(body.charge_id))).status,
        404,
        'a live key cannot see a test payout',
      );
    });

    test("a failed payout (transaction_status 'failed') releases its reservation: the balance is unchanged", async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
      const body = payoutBody({ amount: 500, transaction_status: 'failed' });
      const res = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.status, 'failed');
      assert.match(res.body.message, /^Payout failed: /, 'a failed payout does not say it succeeded');
      assert.equal(res.body.data.trans_id, null);
      assert.match(res.body.data.completed_at, TIMESTAMP);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '970.00', collection: 0 });
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0);
      assert.equal(await accountMinor(ctx.gw, 'system', 'fees'), feesBefore, 'no fee on a failed payout');
      const payout = await testChargeRow(ctx.gw, merchant.id, String(body.charge_id));
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_release']);
      assert.equal(
        (await details(ctx.gw, merchant.test_secret_key, String(body.charge_id))).body.data.status,
        'failed',
      );
      const ok = await initializePayout(
        ctx.gw,
        merchant.test_secret_key,
        payoutBody({ amount: 500, transaction_status: 'successful' }),
      );
      assert.equal(
        ok.body.data.status,
        'success',
        'transaction_status "successful" is the default outcome, and may be said',
      );
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '465.00', collection: 0 });
    });

    test('a payout the main balance cannot cover is 400 and leaves no record', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = payoutBody({ amount: 100 });
      assert.deepEqual((await initializePayout(ctx.gw, merchant.test_secret_key, body)).body, INSUFFICIENT);
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 0, 'no record in charges');
      // Collected but not yet settled money is not payable.
      await collect(merchant.test_secret_key, merchant.id, 1000);
      const early = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(early.status, 400);
      assert.deepEqual(early.body, INSUFFICIENT);
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 0);
      await settleCollections(db(), Date.now());
      // 970.00 is there: 961 + 9.61 fee does not fit.
      assert.deepEqual(
        (await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 961 }))).body,
        INSUFFICIENT,
      );
      const later = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(later.status, 201, `the refused charge_id is free: ${later.text}`);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '869.00', collection: 0 });
      assert.equal(
        (await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 860 }))).status,
        201,
        '860 + 8.60 = 868.60 fits',
      );
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.40', collection: 0 });
    });

    test('TNM Mpamba cannot receive payouts: 400, no record', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const body = payoutBody({ amount: 100, mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF });
      assertFieldError(
        await initializePayout(ctx.gw, merchant.test_secret_key, body),
        'mobile_money_operator_ref_id',
        'The selected operator does not support payouts.',
      );
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 0);
      const mismatch = payoutBody({ amount: 100, mobile: TEST_NUMBERS.tnmSuccess });
      assertFieldError(
        await initializePayout(ctx.gw, merchant.test_secret_key, mismatch),
        'mobile',
        'The mobile is a TNM Mpamba number, not Airtel Money.',
      );
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(mismatch.charge_id))).length, 0);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '970.00', collection: 0 });
    });

    test('payout requests are validated like charges', async () => {
      const key = ctx.merchant.test_secret_key;
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ amount: '10.5' })),
        'amount',
        'The amount must be an integer.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ amount: 0 })),
        'amount',
        'The amount must be at least 1.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ amount: 2147483648 })),
        'amount',
        'The amount must not be greater than 2147483647.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ mobile: '12345' })),
        'mobile',
        'The mobile must be an Airtel Money or TNM Mpamba number.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ transaction_status: 'success' })),
        'transaction_status',
        'The selected transaction status is invalid.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ mobile_money_operator_ref_id: 'nope' })),
        'mobile_money_operator_ref_id',
        'The selected mobile money operator ref id is invalid.',
      );
      assertFieldError(
        await initializePayout(ctx.gw, key, payoutBody({ charge_id: 'has space' })),
        'charge_id',
        'The charge id format is invalid.',
      );
    });

    test('a payout in any currency but MWK is refused on currency, with no record and no money moved; MWK, said or not, is paid', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      for (const currency of ['USD', 'GBP', 'mwk']) {
        const body = payoutBody({ amount: 100, currency });
        assertFieldError(
          await initializePayout(ctx.gw, merchant.test_secret_key, body),
          'currency',
          'Mobile money payouts are paid in MWK only.',
        );
        assert.equal(
          (await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length,
          0,
          `${currency}: no record`,
        );
      }
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '970.00', collection: 0 },
        'nothing reserved',
      );
      for (const currency of ['MWK', undefined]) {
        const res = await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 100, currency }));
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.data.currency, 'MWK');
      }
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '768.00', collection: 0 },
        '970 less two payouts of 100 and their fees',
      );
    });

    test('transaction_status with a live key is 400 and leaves no record', async () => {
      for (const transactionStatus of ['successful', 'failed']) {
        const body = payoutBody({ amount: 100, transaction_status: transactionStatus });
        assertFieldError(
          await initializePayout(ctx.gw, ctx.merchant.live_secret_key, body),
          'transaction_status',
          /test key/,
        );
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
      }
      const live = payoutBody({ amount: 100 });
      assert.deepEqual(
        (await initializePayout(ctx.gw, ctx.merchant.live_secret_key, live)).body,
        INSUFFICIENT,
        'the live balance is its own, and empty',
      );
    });

    for (const scenario of [
      { name: 'exactly enough for three', collected: 3030, payout: 970, main: '0.00' },
      { name: 'enough for three and a half', collected: 4000, payout: 1000, main: '850.00' },
    ]) {
      test(`five concurrent payouts, ${scenario.name}: exactly three are paid`, async () => {
        const merchant = await ctx.gw.newMerchant();
        await fundMainBalance(ctx.gw, merchant, scenario.collected);
        const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
        const bodies = Array.from({ length: 5 }, () => payoutBody({ amount: scenario.payout }));
        const answers = await Promise.all(
          bodies.map((body) => initializePayout(ctx.gw, merchant.test_secret_key, body)),
        );
        const paid = answers.filter((res) => res.status === 201);
        const refused = answers.filter((res) => res.status !== 201);
        assert.equal(paid.length, 3, answers.map((res) => res.text).join('\n'));
        for (const res of paid) assert.equal(res.body.data.status, 'success');
        for (const res of refused) assert.deepEqual(res.body, INSUFFICIENT);
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: scenario.main, collection: 0 });
        assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0);
        assert.equal(
          (await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore,
          3 * scenario.payout,
          'three 1 % fees',
        );
        const rows = await db()
          .selectFrom('charges')
          .select(['charge_id', 'status'])
          .where('merchant_id', '=', merchant.id)
          .where('kind', '=', 'payout')
          .execute();
        assert.equal(rows.length, 3, 'refused payouts leave no record');
        assert.deepEqual(
          new Set(rows.map((row) => row.charge_id)),
          new Set(paid.map((res) => res.body.data.charge_id)),
        );
      });
    }

    test('concurrent identical payouts pay once', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const body = payoutBody({ amount: 100 });
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => initializePayout(ctx.gw, merchant.test_secret_key, body)),
      );
      const ok = answers.filter((res) => res.status === 201);
      assert.ok(ok.length >= 1, answers.map((res) => res.text).join('\n'));
      assert.equal(new Set(ok.map((res) => res.body.data.ref_id)).size, 1, 'every 201 names the same payout');
      for (const res of answers.filter((r) => r.status !== 201))
        assert.deepEqual(res.body.message, { charge_id: ['The charge id has already been taken.'] });
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 1);
      await eventually(
        'the payout to end',
        async () => (await testChargeRow(ctx.gw, merchant.id, String(body.charge_id))).status === 'success',
      );
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '869.00', collection: 0 },
        'debited once',
      );
      const replay = await initializePayout(ctx.gw, merchant.test_secret_key, body);
      assert.deepEqual(
        replay.body.message,
        { charge_id: ['The charge id has already been taken.'] },
        'an ended payout is never paid again',
      );
    });

    test('webhooks: api.charge.payment for a charge, api.payout for each payout, signed', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const charge = chargeBody({ amount: 2000 });
      const created = await initializeCharge(ctx.gw, merchant.test_secret_key, charge);
      assert.equal(created.status, 201);
      await settledByWorker(ctx.gw, merchant.id, String(charge.charge_id));
      await settleCollections(db(), Date.now());
      const good = payoutBody({ amount: 1000 });
      const bad = payoutBody({ amount: 300, transaction_status: 'failed' });
      const goodRes = await initializePayout(ctx.gw, merchant.test_secret_key, good);
      const badRes = await initializePayout(ctx.gw, merchant.test_secret_key, bad);
      await receiver.waitFor(3);
      const payloads = receiver.received.map((request) =>
        verifyWebhook(request.body, request.headers, merchant.webhook_secret),
      );
      const byId = new Map(payloads.map((payload) => [payload.charge_id, payload]));
      const paid = byId.get(charge.charge_id)!;
      assert.equal(paid.event_type, 'api.charge.payment');
      assert.equal(paid.status, 'success');
      assert.equal(paid.chargeId, charge.charge_id);
      assert.equal(paid.reference, created.body.data.ref_id);
      assert.equal(paid.amount, 2000);
      assert.equal(paid.charge, 60);
      assert.equal(paid.type, 'Direct API Payment');
      assert.equal(paid.first_name, 'Jane');
      for (const [body, res, status] of [
        [good, goodRes, 'success'],
        [bad, badRes, 'failed'],
      ] as const) {
        const payload = byId.get(body.charge_id)!;
        assert.ok(payload, `a webhook for ${String(body.charge_id)}`);
        assert.equal(payload.event_type, 'api.payout');
        assert.equal(payload.status, status);
        assert.equal(payload.chargeId, body.charge_id);
        assert.equal(payload.reference, res.body.data.ref_id);
        assert.equal(payload.amount, body.amount);
        assert.equal(payload.currency, 'MWK');
        assert.equal(payload.type, 'API Payout');
        assert.equal(payload.first_name, null);
        assert.equal(payload.last_name, null);
        assert.equal(payload.email, null);
        assert.equal(payload.mode, 'test');
        assert.match(String(payload.created_at), TIMESTAMP);
        assert.match(String(payload.updated_at), TIMESTAMP);
      }
      assert.equal(byId.get(good.charge_id)!.charge, 10);
      assert.equal(receiver.received.length, 3);
    });

    test('test and live ledgers are separate', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      await collect(merchant.test_secret_key, merchant.id, 500);
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 100 }))).status, 201);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '869.00', collection: 485 });
      assert.deepEqual(await walletBalance(ctx.gw, merchant.live_secret_key), { main: '0.00', collection: 0 });
      const liveAccounts = await db()
        .selectFrom('ledger_accounts')
        .select(['kind', 'balance_minor'])
        .where('owner', '=', merchant.id)
        .where('mode', '=', 'live')
        .execute();
      assert.ok(
        liveAccounts.every((account) => Number(account.balance_minor) === 0),
        JSON.stringify(liveAccounts),
      );
      const liveSystem = await db()
        .selectFrom('ledger_accounts')
        .select(['kind'])
        .where('owner', '=', 'system')
        .where('mode', '=', 'live')
        .execute();
      assert.deepEqual(liveSystem, [], 'no live money moved anywhere');
    });

    test('lipira ledger check exits 0 on the healthy gateway database', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 100 }));
      await initializePayout(
        ctx.gw,
        merchant.test_secret_key,
        payoutBody({ amount: 100, transaction_status: 'failed' }),
      );
      const check = await lipira(['ledger', 'check'], env());
      assert.equal(check.code, 0, check.stderr);
      assert.equal(
        check.stdout.trim(),
        'Ledger OK: every transaction sums to zero, every balance equals the sum of its entries, every paid session has exactly one credited payment, every payment a session could not count is held for its refund, every refund paid out once at most, and every payout reserved once, then paid out or released once as it ended.',
      );
    });

    test('lipira ledger check fails, naming the account, after a balance is corrupted (throwaway database)', async () => {
      const throwaway = freshDatabase(kind);
      const opened = await openMigratedDatabase(throwaway.url);
      try {
        const merchant = await createMerchant(
          opened.db,
          {
            name: 'Throwaway',
            email: 'x@example.com',
            webhookUrl: null,
            feeBasisPoints: 300,
          },
          Date.now(),
        );
        await opened.db.transaction().execute((trx) =>
          creditCollection(
            trx,
            {
              merchantId: merchant.id,
              mode: 'test',
              currency: 'MWK',
              amountMinor: 1000_00,
              feeMinor: 30_00,
              reference: 'chg_throwaway',
            },
            Date.now(),
          ),
        );
        const healthy = await lipira(['ledger', 'check'], { DATABASE_URL: throwaway.url });
        assert.equal(healthy.code, 0, healthy.stderr);
        const account = await opened.db
          .selectFrom('ledger_accounts')
          .select(['id'])
          .where('owner', '=', merchant.id)
          .where('kind', '=', 'collection')
          .executeTakeFirstOrThrow();
        await opened.db
          .updateTable('ledger_accounts')
          .set({ balance_minor: 1_000_000_00 })
          .where('id', '=', account.id)
          .execute();
        const broken = await lipira(['ledger', 'check'], { DATABASE_URL: throwaway.url });
        assert.notEqual(broken.code, 0);
        assert.equal(broken.stdout.includes('Ledger OK'), false);
        assert.match(
          broken.stderr,
          new RegExp(`account ${account.id} has balance 100000000 but its entries sum to 97000`),
        );
        assert.deepEqual(await checkLedger(opened.db), [
          `account ${account.id} has balance 100000000 but its entries sum to 97000`,
        ]);
      } finally {
        await opened.close();
        await throwaway.drop();
      }
    });

    test('the ledger check finds a paid session without a credit and a charge credited twice (throwaway database)', async () => {
      const throwaway = freshDatabase(kind);
      const opened = await openMigratedDatabase(throwaway.url);
      try {
        const merchant = await createMerchant(
          opened.db,
          {
            name: 'Throwaway',
            email: 'x@example.com',
            webhookUrl: null,
            feeBasisPoints: 300,
          },
          Date.now(),
        );
        const now = Date.now();
        const session = await createSession(
          { db: opened.db, transact: opened.transact, clock: fakeClock(now), checkoutTtlMs: 60_000, liveRoutes: {} },
          { merchantId: merchant.id, mode: 'test' },
          { generation: 'current', amount: 1000, currency: 'MWK', first_name: 'Ada' },
        );
        assert.ok(await claimAttemptSlot(opened.db, session.id, asChargeRef('chg_paid'), now));
        assert.ok(await markPaid(opened.db, session.id, asChargeRef('chg_paid'), 30_00, now));
        assert.deepEqual(await checkLedger(opened.db), [`paid session ${session.id} has 0 credited payments, not 1`]);
        const credit = {
          merchantId: merchant.id,
          mode: 'test' as const,
          currency: 'MWK',
          amountMinor: 1000_00,
          feeMinor: 30_00,
          reference: 'chg_paid',
        };
        await opened.db.transaction().execute((trx) => creditCollection(trx, credit, now));
        assert.deepEqual(await checkLedger(opened.db), []);
        await opened.db.transaction().execute((trx) => creditCollection(trx, credit, now));
        assert.deepEqual(await checkLedger(opened.db), [
          'charge chg_paid was credited 2 times',
          `paid session ${session.id} has 2 credited payments, not 1`,
        ]);
      } finally {
        await opened.close();
        await throwaway.drop();
      }
    });

    test('the ledger check finds a payout reserved twice, and one that ended without its money moving (throwaway database)', async () => {
      const throwaway = freshDatabase(kind);
      const opened = await openMigratedDatabase(throwaway.url);
      try {
        const merchant = await createMerchant(
          opened.db,
          {
            name: 'Throwaway',
            email: 'x@example.com',
            webhookUrl: null,
            feeBasisPoints: 300,
          },
          Date.now(),
        );
        const now = Date.now();
        await opened.db.transaction().execute((trx) =>
          creditCollection(
            trx,
            {
              merchantId: merchant.id,
              mode: 'test',
              currency: 'MWK',
              amountMinor: 1000_00,
              feeMinor: 30_00,
              reference: 'chg_funding',
            },
            now,
          ),
        );
        await settleCollections(opened.db, now);
        const deps = paymentDeps(loadConfig({ SANDBOX_MOBILE_DELAY: '1h' }), opened);
        const request = {
          payout_method: 'bank_transfer' as const,
          bank_uuid: NBM_UUID,
          amount: 100,
          charge_id: 'bank-payout-1',
          bank_account_name: 'Madalitso Kamwendo',
          bank_account_number: '1001000010',
        };
        const { payout } = await initializeBankPayout(deps, { merchantId: merchant.id, mode: 'test' }, request, {
          now,
        });
        assert.deepEqual(await checkLedger(opened.db), [], 'a pending payout holds its one reservation');
        await opened.db.transaction().execute((trx) => reservePayout(trx, movementOf(payout), now));
        assert.deepEqual(await checkLedger(opened.db), [
          `payout ${payout.id} (pending) was reserved 2, paid out 0 and released 0 times`,
        ]);
        await opened.db.updateTable('charges').set({ status: 'success' }).where('id', '=', payout.id).execute();
        assert.deepEqual(await checkLedger(opened.db), [
          `payout ${payout.id} (success) was reserved 2, paid out 0 and released 0 times`,
        ]);
      } finally {
        await opened.close();
        await throwaway.drop();
      }
    });
  });
}
