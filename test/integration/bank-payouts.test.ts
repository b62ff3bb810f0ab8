import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { loadConfig } from '../../src/config.ts';
import { creditCollection, settleCollections } from '../../src/ledger/ledger-service.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { type PaymentDeps } from '../../src/core/payment-deps.ts';
import { initializeBankPayout as initializeBankPayoutService } from '../../src/payouts/bank-payouts.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { TIMESTAMP } from '../helpers/fixtures.ts';
import { assertFieldError, call, refusedKeyBody, useTestGateway, type ApiResponse } from '../helpers/gateway.ts';
import {
  BANK_PAYOUT_KEYS,
  bankPayoutBody,
  bankPayoutDetails,
  bankPayoutList,
  initializeBankPayout,
  NBM_UUID,
  recipientRows,
} from '../helpers/bank-payouts.ts';
import {
  accountMinor,
  AIRTEL_REF,
  chargeBody,
  chargeRows,
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
  walletBalance,
} from '../helpers/mobile-money.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';
import type { Receiver } from '../helpers/receiver.ts';

const INSUFFICIENT = {
  status: 'failed',
  message: { amount: ['The amount and its fee exceed the available balance.'] },
  data: null,
};
const TAKEN = { status: 'failed', message: { charge_id: ['The charge id has already been taken.'] }, data: null };

const BANKS = [
  ['82310dd1-ec9b-4fe7-a32c-2f262ef08681', 'National Bank of Malawi'],
  ['5954b393-f79c-4bec-80ec-c4bad151f627', 'NBS Bank'],
  ['31650bf9-cc81-4080-a315-5ada4e84fc16', 'Standard Bank'],
  ['373657cc-87bc-4924-9f19-faacda43091e', 'FDH Bank'],
  ['364ecbe4-5ed5-4c00-8c9b-726bade2a99b', 'First Capital Bank'],
  ['34567086-c8f1-412d-a573-dc814a69ddbb', 'Ecobank'],
  ['d05d3669-a9b1-417d-8847-527433495ca4', 'CDH Investment Bank'],
  ['c7a351a2-1df6-40d0-ba9f-bec9b1139a9b', 'Centenary Bank'],
  [AIRTEL_REF, 'Airtel Money'],
  [TNM_REF, 'TNM Mpamba'],
].map(([uuid, name]) => ({ uuid, name }));

const outbox = temporaryFolder('lipira-outbox-');
after(() => outbox.remove());

/** The merchant's one `api.payout` webhook (its funding sent an `api.charge.payment` before), signature checked. */
async function payoutWebhook(receiver: Receiver, webhookSecret: string): Promise<Record<string, unknown>> {
  await eventually('the api.payout webhook', async () =>
    receiver.received.some((request) => request.body.includes('"event_type":"api.payout"')),
  );
  const payouts = receiver.received.filter((request) => request.body.includes('"event_type":"api.payout"'));
  assert.equal(payouts.length, 1, 'one webhook per payout');
  return verifyWebhook(payouts[0]!.body, payouts[0]!.headers, webhookSecret);
}

for (const kind of DATABASE_KINDS) {
  // Test payouts stay pending for an hour here, so that what a pending payout answers can be read at leisure.
  describe(`bank payouts while pending on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h', WORKER_INTERVAL: '50ms', OUTBOX_DIR: outbox.dir });
    const db = () => ctx.gw.gateway.database.db;

    /** A merchant whose main balance holds 1940.00 (2000 collected, less the 3 % fee). */
    async function fundedMerchant() {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 2000);
      return merchant;
    }

    async function assertNoRecord(merchantId: string, chargeId: unknown): Promise<void> {
      assert.equal((await chargeRows(ctx.gw, merchantId, String(chargeId))).length, 0, 'no charge row');
      assert.equal((await recipientRows(ctx.gw, merchantId, String(chargeId))).length, 0, 'no recipient row');
    }

    test("GET /direct-charge/payouts/supported-banks lists Malawi's banks and the two wallets, each with its fixed uuid, in kwacha only", async () => {
      const key = ctx.merchant.test_secret_key;
      const res = await call(ctx.gw.url, '/direct-charge/payouts/supported-banks?currency=MWK', { key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { status: 'success', message: 'Retrieved successfully.', data: BANKS });
      assert.deepEqual(
        (await call(ctx.gw.url, '/direct-charge/payouts/supported-banks', { key })).body.data,
        BANKS,
        'kwacha when no currency is named',
      );
      assert.deepEqual(
        (await call(ctx.gw.url, '/direct-charge/payouts/supported-banks', { key: ctx.merchant.live_secret_key })).body
          .data,
        BANKS,
        'the same list for live keys',
      );
      for (const currency of ['USD', 'GBP', 'XYZ']) {
        assertFieldError(
          await call(ctx.gw.url, `/direct-charge/payouts/supported-banks?currency=${currency}`, { key }),
          'currency',
          'The selected currency is invalid.',
        );
      }
    });

    test('initialize answers 201 with the bank payout transaction, pending, and reserves the amount and its 1 % fee at once', async () => {
      const merchant = await fundedMerchant();
      const body = bankPayoutBody({ amount: '1000', currency: 'MWK' });
      const res = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Payout request submitted successfully.');
      assert.deepEqual(Object.keys(res.body.data), ['transaction']);
      const transaction = res.body.data.transaction;
      assert.deepEqual(sortedKeys(transaction), BANK_PAYOUT_KEYS);
      assert.equal(transaction.charge_id, body.charge_id);
      assert.match(transaction.ref_id, /^\d{11}$/);
      assert.equal(transaction.trans_id, null);
      assert.equal(transaction.currency, 'MWK');
      assert.equal(transaction.amount, 1000);
      assert.equal(transaction.type, 'API Payout');
      assert.equal(transaction.status, 'pending');
      assert.equal(transaction.mode, 'sandbox');
      assert.match(transaction.created_at, TIMESTAMP);
      assert.equal(transaction.completed_at, null);
      assert.equal(transaction.event_type, 'api.payout');
      assert.deepEqual(transaction.transaction_charges, { currency: 'MWK', amount: '10.00' });
      assert.deepEqual(transaction.recipient_account_details, {
        bank_uuid: NBM_UUID,
        bank_name: 'National Bank of Malawi',
        account_name: 'Madalitso Kamwendo',
        account_number: '1001000010',
      });
      assert.equal(transaction.trace_id, null);
      assert.equal(transaction.mobile, '0', 'as PayChangu shows a bank payout');
      assert.equal(transaction.mobile_money, null);
      assert.equal(transaction.attempts, 1);
      for (const field of ['first_name', 'last_name', 'email'])
        assert.equal(transaction[field], null, `payout records carry no customer: ${field}`);
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '930.00', collection: 0 },
        '1940 less 1000 and its 10 fee',
      );
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 1010_00, 'held until the bank answers');
      const payout = await testChargeRow(ctx.gw, merchant.id, String(body.charge_id));
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve']);
      const recipient = await db()
        .selectFrom('payout_recipients')
        .selectAll()
        .where('charge_ref', '=', payout.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...recipient, created_at: Number(recipient.created_at) },
        {
          charge_ref: payout.id,
          merchant_id: merchant.id,
          mode: 'test',
          bank_uuid: NBM_UUID,
          bank_name: 'National Bank of Malawi',
          account_name: 'Madalitso Kamwendo',
          account_number: '1001000010',
          created_at: Number(payout.created_at),
        },
      );
    });

    test('details: top-level "successful", the same record flat with its logs; other merchants and modes get 404', async () => {
      const merchant = await fundedMerchant();
      const body = bankPayoutBody({ amount: 500 });
      const created = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(created.status, 201, created.text);
      const res = await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'successful');
      assert.equal(res.body.message, 'Transaction details retrieved successfully');
      const { logs, ...record } = res.body.data;
      assert.deepEqual(
        record,
        created.body.data.transaction,
        'flat: no transaction wrapper, every field initialize answered',
      );
      assert.equal(logs.length, 1);
      assert.equal(
        logs[0].message,
        'Payout requested to National Bank of Malawi account ending 0010 (Madalitso Kamwendo)',
      );
      assert.match(logs[0].created_at, TIMESTAMP);
      const other = await ctx.gw.newMerchant();
      for (const key of [merchant.live_secret_key, other.test_secret_key]) {
        assert.deepEqual((await bankPayoutDetails(ctx.gw, key, String(body.charge_id))).body, {
          status: 'failed',
          message: 'Transaction not found.',
          data: null,
        });
      }
      assert.equal((await bankPayoutDetails(ctx.gw, merchant.test_secret_key, 'no-such-payout')).status, 404);
    });

    test('only payouts through the banks list have details here: a mobile money payout or a charge with that charge_id is 404', async () => {
      const merchant = await fundedMerchant();
      const bank = bankPayoutBody({ amount: 100 });
      const mobile = payoutBody({ amount: 100 });
      const charge = chargeBody();
      assert.equal((await initializeBankPayout(ctx.gw, merchant.test_secret_key, bank)).status, 201);
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, mobile)).status, 201);
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, charge)).status, 201);
      assert.equal((await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(bank.charge_id))).status, 200);
      for (const other of [mobile, charge]) {
        assert.deepEqual((await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(other.charge_id))).body, {
          status: 'failed',
          message: 'Transaction not found.',
          data: null,
        });
      }
    });

    test('the same charge_id with the same parameters while pending answers as the first time; with other parameters it is taken', async () => {
      const merchant = await fundedMerchant();
      const body = bankPayoutBody({ amount: 300 });
      const first = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(first.status, 201, first.text);
      const again = await initializeBankPayout(ctx.gw, merchant.test_secret_key, {
        ...body,
        amount: '300',
        unknown_field: 'ignored',
        currency: 'MWK',
      });
      assert.equal(again.status, 201, again.text);
      assert.deepEqual(again.body, first.body, 'a retry gets the first answer');
      for (const change of [
        { amount: 301 },
        { bank_account_number: '1001000011' },
        { bank_account_name: 'Someone Else' },
        { bank_uuid: BANKS[1]!.uuid },
        { transaction_status: 'failed' },
      ]) {
        assert.deepEqual(
          (await initializeBankPayout(ctx.gw, merchant.test_secret_key, { ...body, ...change })).body,
          TAKEN,
          JSON.stringify(change),
        );
      }
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 1);
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '1637.00', collection: 0 },
        'reserved once: 1940 less 303',
      );
      const mobile = payoutBody({ amount: 100 });
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, mobile)).status, 201);
      assert.deepEqual(
        (
          await initializeBankPayout(
            ctx.gw,
            merchant.test_secret_key,
            bankPayoutBody({ charge_id: mobile.charge_id, amount: 100 }),
          )
        ).body,
        TAKEN,
        'charge_ids are shared with every other record',
      );
      assert.deepEqual(
        (
          await initializePayout(
            ctx.gw,
            merchant.test_secret_key,
            payoutBody({ charge_id: body.charge_id, amount: 300 }),
          )
        ).body,
        TAKEN,
        'and the mobile money route sees this one',
      );
    });

    test('concurrent identical requests make one payout and reserve once', async () => {
      const merchant = await fundedMerchant();
      const body = bankPayoutBody({ amount: 100 });
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => initializeBankPayout(ctx.gw, merchant.test_secret_key, body)),
      );
      const ok = answers.filter((res) => res.status === 201);
      assert.equal(ok.length, 4, answers.map((res) => res.text).join('\n'));
      assert.equal(
        new Set(ok.map((res) => res.body.data.transaction.ref_id)).size,
        1,
        'every answer names the same payout',
      );
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 1);
      assert.equal((await recipientRows(ctx.gw, merchant.id, String(body.charge_id))).length, 1);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '1839.00', collection: 0 });
    });

    test('an unknown bank uuid is 400 and leaves no record', async () => {
      const merchant = await fundedMerchant();
      for (const uuid of ['00000000-0000-4000-8000-000000000000', 'national-bank', NBM_UUID.toUpperCase()]) {
        const body = bankPayoutBody({ bank_uuid: uuid });
        assertFieldError(
          await initializeBankPayout(ctx.gw, merchant.test_secret_key, body),
          'bank_uuid',
          'The selected bank uuid is invalid.',
        );
        await assertNoRecord(merchant.id, body.charge_id);
      }
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '1940.00', collection: 0 });
    });

    test('a payout the main balance cannot cover is 400 and leaves no record; collected but unsettled money does not count', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = bankPayoutBody({ amount: 100 });
      assert.deepEqual((await initializeBankPayout(ctx.gw, merchant.test_secret_key, body)).body, INSUFFICIENT);
      await assertNoRecord(merchant.id, body.charge_id);
      await fundMainBalance(ctx.gw, merchant, 1000);
      // 970.00 is there: 961 + 9.61 does not fit, 960 + 9.60 does.
      const over = bankPayoutBody({ amount: 961 });
      assert.deepEqual((await initializeBankPayout(ctx.gw, merchant.test_secret_key, over)).body, INSUFFICIENT);
      await assertNoRecord(merchant.id, over.charge_id);
      assert.equal(
        (await initializeBankPayout(ctx.gw, merchant.test_secret_key, bankPayoutBody({ amount: 960 }))).status,
        201,
      );
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.40', collection: 0 });
      const later = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.deepEqual(
        later.body,
        INSUFFICIENT,
        'the refused charge_id stays free, and the money reserved for the pending payout is not spent twice',
      );
      assert.deepEqual(
        (await initializeBankPayout(ctx.gw, merchant.live_secret_key, bankPayoutBody({ amount: 1 }))).body,
        INSUFFICIENT,
        'the live balance is its own, and empty',
      );
    });

    test('transaction_status with a live key is 400 and leaves no record', async () => {
      for (const transactionStatus of ['successful', 'failed']) {
        const body = bankPayoutBody({ amount: 100, transaction_status: transactionStatus });
        assertFieldError(
          await initializeBankPayout(ctx.gw, ctx.merchant.live_secret_key, body),
          'transaction_status',
          'The transaction status can only be chosen with a test key.',
        );
        await assertNoRecord(ctx.merchant.id, body.charge_id);
      }
    });

    test('a live payout is refused by the unconnected live provider at once: 201 failed, its reservation given back', async () => {
      const merchant = await ctx.gw.newMerchant();
      // Live money cannot come in through the sandbox: the ledger is credited as a live collection would be.
      await db()
        .transaction()
        .execute((trx) =>
          creditCollection(
            trx,
            {
              merchantId: merchant.id,
              mode: 'live',
              currency: 'MWK',
              amountMinor: 1000_00,
              feeMinor: 30_00,
              reference: 'chg_live_funding',
            },
            Date.now(),
          ),
        );
      await settleCollections(db(), Date.now());
      const body = bankPayoutBody({ amount: 100 });
      const res = await initializeBankPayout(ctx.gw, merchant.live_secret_key, body);
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.message, /^Payout failed: Live payments are not available yet/);
      assert.equal(res.body.data.transaction.status, 'failed');
      assert.equal(res.body.data.transaction.mode, 'live');
      assert.match(res.body.data.transaction.completed_at, TIMESTAMP);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.live_secret_key), { main: '970.00', collection: 0 });
      const [payout] = (await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).filter(
        (row) => row.mode === 'live',
      );
      // Both in the same millisecond: compared as a set.
      assert.deepEqual((await ledgerKindsFor(ctx.gw, payout!)).sort(), ['payout_release', 'payout_reserve']);
    });

    test('a public key, a missing key or an unknown key on the payout routes is 401', async () => {
      const merchant = await fundedMerchant();
      const body = bankPayoutBody({ amount: 100 });
      assert.equal((await initializeBankPayout(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const routes: Array<(key: string | null) => Promise<ApiResponse>> = [
        (key) => call(ctx.gw.url, '/direct-charge/payouts/supported-banks?currency=MWK', { key }),
        (key) => call(ctx.gw.url, '/direct-charge/payouts/initialize', { key, body: bankPayoutBody({ amount: 100 }) }),
        (key) => bankPayoutDetails(ctx.gw, key, String(body.charge_id)),
        (key) => bankPayoutList(ctx.gw, key),
      ];
      for (const route of routes) {
        for (const key of [
          merchant.test_public_key,
          merchant.live_public_key,
          null,
          'sec-test-0000000000000000000000000000000X',
        ]) {
          const res = await route(key);
          assert.equal(res.status, 401, res.text);
          assert.deepEqual(res.body, refusedKeyBody(key));
        }
      }
      assert.equal((await chargeRows(ctx.gw, merchant.id, String(body.charge_id))).length, 1);
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '1839.00', collection: 0 },
        'no refused request moved money',
      );
    });

    test('requests are validated field by field, with no record', async () => {
      const merchant = await fundedMerchant();
      const key = merchant.test_secret_key;
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ payout_method: undefined }, 'payout_method', 'The payout method field is required.'],
        [{ payout_method: 'mobile_money' }, 'payout_method', 'The selected payout method is invalid.'],
        [{ bank_uuid: undefined }, 'bank_uuid', 'The bank uuid field is required.'],
        [{ amount: '10.5' }, 'amount', 'The amount must be an integer.'],
        [{ amount: 0 }, 'amount', 'The amount must be at least 1.'],
        [{ charge_id: 'has space' }, 'charge_id', 'The charge id format is invalid.'],
        [{ bank_account_name: null }, 'bank_account_name', 'The bank account name field is required.'],
        [{ bank_account_number: '' }, 'bank_account_number', 'The bank account number field is required.'],
        [
          { bank_account_number: '1001-000-010' },
          'bank_account_number',
          'The bank account number must be 5 to 20 digits.',
        ],
        [
          { bank_account_number: '+265990000000' },
          'bank_account_number',
          'The bank account number must be 5 to 20 digits.',
        ],
        [{ bank_account_number: '1234' }, 'bank_account_number', 'The bank account number must be 5 to 20 digits.'],
        [{ currency: 'USD' }, 'currency', 'The selected currency is invalid.'],
        [{ email: 'not-an-address' }, 'email', 'The email must be a valid email address.'],
        [{ transaction_status: 'success' }, 'transaction_status', 'The selected transaction status is invalid.'],
      ];
      for (const [change, field, message] of cases) {
        const body = bankPayoutBody(change);
        assertFieldError(await initializeBankPayout(ctx.gw, key, JSON.parse(JSON.stringify(body))), field, message);
        await assertNoRecord(merchant.id, body.charge_id);
      }
      assert.deepEqual(await walletBalance(ctx.gw, key), { main: '1940.00', collection: 0 });
    });

    test("a wallet payout without its holder's name is asked for the wallet holder's name, not a bank account's, with no record", async () => {
      const merchant = await fundedMerchant();
      const key = merchant.test_secret_key;
      const cases = [
        [AIRTEL_REF, '265990000000', 'an Airtel Money'],
        [TNM_REF, TEST_NUMBERS.tnmSuccess, 'a TNM Mpamba'],
      ] as const;
      for (const [bank_uuid, bank_account_number, wallet] of cases) {
        for (const name of [undefined, null, '']) {
          const body = bankPayoutBody({ bank_uuid, bank_account_number, bank_account_name: name });
          assertFieldError(
            await initializeBankPayout(ctx.gw, key, JSON.parse(JSON.stringify(body))),
            'bank_account_name',
            `The bank account name field is required: for ${wallet} wallet, the name of its holder.`,
          );
          await assertNoRecord(merchant.id, body.charge_id);
        }
      }
      const both = await initializeBankPayout(
        ctx.gw,
        key,
        JSON.parse(
          JSON.stringify(
            bankPayoutBody({
              bank_uuid: AIRTEL_REF,
              bank_account_number: '265990000000',
              bank_account_name: null,
              amount: 0,
            }),
          ),
        ),
      );
      assert.deepEqual(
        both.body.message,
        {
          amount: ['The amount must be at least 1.'],
          bank_account_name: [
            'The bank account name field is required: for an Airtel Money wallet, the name of its holder.',
          ],
        },
        'every refusal at once, as for any body',
      );
      const bank = bankPayoutBody({ bank_account_name: null });
      assertFieldError(
        await initializeBankPayout(ctx.gw, key, JSON.parse(JSON.stringify(bank))),
        'bank_account_name',
        'The bank account name field is required.',
      );
      assert.deepEqual(await walletBalance(ctx.gw, key), { main: '1940.00', collection: 0 });
    });

    test('a wallet of the banks list takes its mobile number as the account number; TNM Mpamba too, which the mobile money route refuses', async () => {
      const merchant = await fundedMerchant();
      const airtel = bankPayoutBody({ bank_uuid: AIRTEL_REF, bank_account_number: '265990000000', amount: 200 });
      const res = await initializeBankPayout(ctx.gw, merchant.test_secret_key, airtel);
      assert.equal(res.status, 201, res.text);
      const transaction = res.body.data.transaction;
      assert.equal(transaction.status, 'pending');
      assert.equal(transaction.mobile, '+265990xxxx00');
      assert.deepEqual(transaction.mobile_money, { name: 'Airtel Money', ref_id: AIRTEL_REF, country: 'Malawi' });
      assert.deepEqual(transaction.recipient_account_details, {
        bank_uuid: AIRTEL_REF,
        bank_name: 'Airtel Money',
        account_name: 'Madalitso Kamwendo',
        account_number: '265990000000',
      });
      const row = await testChargeRow(ctx.gw, merchant.id, String(airtel.charge_id));
      assert.deepEqual([row.channel, row.operator, row.kind], ['mobile_money', 'airtel', 'payout']);
      const logs = (await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(airtel.charge_id))).body.data.logs;
      assert.equal(logs[0].message, 'Payout requested to +265990xxxx00 (Airtel Money) (Madalitso Kamwendo)');
      const sameNumber = await initializeBankPayout(ctx.gw, merchant.test_secret_key, {
        ...airtel,
        bank_account_number: '0990000000',
      });
      assert.deepEqual(sameNumber.body, res.body, 'the same wallet written another way is the same request');

      const tnm = bankPayoutBody({ bank_uuid: TNM_REF, bank_account_number: TEST_NUMBERS.tnmSuccess, amount: 200 });
      const tnmRes = await initializeBankPayout(ctx.gw, merchant.test_secret_key, tnm);
      assert.equal(tnmRes.status, 201, tnmRes.text);
      assert.equal(tnmRes.body.data.transaction.recipient_account_details.bank_name, 'TNM Mpamba');
      assert.equal(tnmRes.body.data.transaction.mobile, '+265899xxxx65');

      for (const [uuid, number, bankName] of [
        [AIRTEL_REF, TEST_NUMBERS.tnmSuccess, 'Airtel Money'],
        [TNM_REF, TEST_NUMBERS.airtelSuccess, 'TNM Mpamba'],
        [AIRTEL_REF, '1001000010', 'Airtel Money'],
      ] as const) {
        const body = bankPayoutBody({ bank_uuid: uuid, bank_account_number: number });
        assertFieldError(
          await initializeBankPayout(ctx.gw, merchant.test_secret_key, body),
          'bank_account_number',
          `The bank account number must be a mobile number on ${bankName}.`,
        );
        await assertNoRecord(merchant.id, body.charge_id);
      }
      assert.deepEqual(
        await walletBalance(ctx.gw, merchant.test_secret_key),
        { main: '1536.00', collection: 0 },
        '1940 less two payouts of 200 and their fees',
      );
    });

    test('parallel bank and mobile money payouts over one balance: exactly what it covers is paid, and it never goes below zero', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 3000);
      // 2910.00 is there: two payouts of 970 (979.70 each with the fee) fit, a third does not.
      const bank = Array.from({ length: 4 }, () => bankPayoutBody({ amount: 970 }));
      const mobile = Array.from({ length: 4 }, () => payoutBody({ amount: 970 }));
      const answers = await Promise.all([
        ...bank.map((body) => initializeBankPayout(ctx.gw, merchant.test_secret_key, body)),
        ...mobile.map((body) => initializePayout(ctx.gw, merchant.test_secret_key, body)),
      ]);
      const paid = answers.filter((res) => res.status === 201);
      assert.equal(paid.length, 2, answers.map((res) => res.text).join('\n'));
      for (const res of answers.filter((r) => r.status !== 201)) assert.deepEqual(res.body, INSUFFICIENT);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '950.60', collection: 0 });
      const accounts = await db()
        .selectFrom('ledger_accounts')
        .select(['kind', 'balance_minor'])
        .where('owner', '=', merchant.id)
        .execute();
      assert.ok(
        accounts.every((account) => Number(account.balance_minor) >= 0),
        JSON.stringify(accounts),
      );
      const rows = await db()
        .selectFrom('charges')
        .select('id')
        .where('merchant_id', '=', merchant.id)
        .where('kind', '=', 'payout')
        .execute();
      assert.equal(rows.length, 2, 'refused payouts leave no record');
      const recipients = await db()
        .selectFrom('payout_recipients')
        .select('charge_ref')
        .where('merchant_id', '=', merchant.id)
        .execute();
      assert.ok(
        recipients.every((recipient) => rows.some((row) => row.id === recipient.charge_ref)),
        'no recipient without its payout',
      );
    });
  });

  describe(`bank payouts ending on ${kind}`, () => {
    const ctx = useTestGateway(kind, {
      SANDBOX_MOBILE_DELAY: '100ms',
      WORKER_INTERVAL: '50ms',
      OUTBOX_DIR: outbox.dir,
    });
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));

    test('the bank pays it: the reservation pays the recipient and the fee, an api.payout webhook names the recipient, the ledger check passes', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      await fundMainBalance(ctx.gw, merchant, 2000);
      const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
      const externalBefore = await accountMinor(ctx.gw, 'system', 'external');
      const body = bankPayoutBody({ amount: 1000 });
      const created = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(created.status, 201, created.text);
      const payout = await settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
      assert.equal(payout.status, 'success');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_complete']);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '930.00', collection: 0 });
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0);
      assert.equal((await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore, 10_00, 'the fee is earned');
      assert.equal(
        (await accountMinor(ctx.gw, 'system', 'external')) - externalBefore,
        1000_00,
        'the amount left for the bank',
      );

      const details = await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(details.body.data.status, 'success');
      assert.equal(typeof details.body.data.trans_id, 'string');
      assert.match(details.body.data.completed_at, TIMESTAMP);
      assert.deepEqual(
        details.body.data.logs.map((log: { message: string }) => log.message),
        ['Payout requested to National Bank of Malawi account ending 0010 (Madalitso Kamwendo)', 'Payout completed'],
      );

      const event = await payoutWebhook(receiver, merchant.webhook_secret);
      assert.equal(event.event_type, 'api.payout');
      assert.equal(event.status, 'success');
      assert.equal(event.charge_id, body.charge_id);
      assert.equal(event.chargeId, body.charge_id);
      assert.equal(event.reference, created.body.data.transaction.ref_id);
      assert.equal(event.amount, 1000);
      assert.equal(event.charge, 10);
      assert.equal(event.currency, 'MWK');
      assert.equal(event.type, 'API Payout');
      assert.equal(event.mode, 'test');
      assert.equal(event.first_name, null);
      assert.deepEqual(event.recipient_account_details, {
        bank_uuid: NBM_UUID,
        bank_name: 'National Bank of Malawi',
        account_name: 'Madalitso Kamwendo',
        account_number: '1001000010',
      });
      const check = await lipira(['ledger', 'check'], { DATABASE_URL: ctx.gw.database.url });
      assert.equal(check.code, 0, check.stderr);
      assert.match(check.stdout, /^Ledger OK/);
    });

    test("transaction_status 'failed': the payout fails, its reservation comes back whole, and the webhook says so", async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      await fundMainBalance(ctx.gw, merchant, 1000);
      const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
      const body = bankPayoutBody({ amount: 500, transaction_status: 'failed' });
      const created = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.transaction.status, 'pending', 'the outcome comes later, as from a real bank');
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '465.00', collection: 0 });
      const payout = await settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
      assert.equal(payout.status, 'failed');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_release']);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '970.00', collection: 0 });
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0);
      assert.equal(await accountMinor(ctx.gw, 'system', 'fees'), feesBefore, 'no fee on a failed payout');
      const details = await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(details.body.data.status, 'failed');
      assert.equal(details.body.data.trans_id, null);
      assert.equal(
        details.body.data.logs.at(-1).message,
        'Payout failed: The bank payout failed (test mode, transaction_status=failed).',
      );
      const event = await payoutWebhook(receiver, merchant.webhook_secret);
      assert.equal(event.event_type, 'api.payout');
      assert.equal(event.status, 'failed');
      assert.equal(event.failure_reason, 'The bank payout failed (test mode, transaction_status=failed).');
      assert.equal((event.recipient_account_details as { bank_uuid: string }).bank_uuid, NBM_UUID);
      const replay = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
      assert.deepEqual(replay.body, TAKEN, 'an ended payout is never paid again');
    });

    test('a details read after the outcome is due shows it, whether or not the settler got there first', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const body = bankPayoutBody({ amount: 100 });
      assert.equal((await initializeBankPayout(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const ended = await eventually('details to show the payout ended', async () => {
        const res = await bankPayoutDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id));
        return res.body.data.status === 'pending' ? null : res;
      });
      assert.equal(ended.body.data.status, 'success');
      const payout = await testChargeRow(ctx.gw, merchant.id, String(body.charge_id));
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_complete'], 'paid out once');
    });

    test('a payout to a wallet of the banks list ends like any payout, its webhook naming the wallet', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      await fundMainBalance(ctx.gw, merchant, 1000);
      const body = bankPayoutBody({ bank_uuid: TNM_REF, bank_account_number: '0899817565', amount: 300 });
      assert.equal((await initializeBankPayout(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const payout = await settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
      assert.equal(payout.status, 'success');
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '667.00', collection: 0 });
      const event = await payoutWebhook(receiver, merchant.webhook_secret);
      assert.equal(event.mobile, '+265899xxxx65');
      assert.deepEqual(event.recipient_account_details, {
        bank_uuid: TNM_REF,
        bank_name: 'TNM Mpamba',
        account_name: 'Madalitso Kamwendo',
        account_number: '0899817565',
      });
    });

    test('a payout whose hand-over got no answer (the process died, the provider went away) is asked about by the settler and its money given back', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const deps = paymentDeps(loadConfig({}), ctx.gw.gateway.database);
      const unanswered: PaymentDeps = {
        ...deps,
        providerFor: (mode) => ({
          ...deps.providerFor(mode),
          startBankPayout: () => Promise.reject(new Error('the connection was reset')),
        }),
      };
      const request = {
        payout_method: 'bank_transfer' as const,
        bank_uuid: NBM_UUID,
        amount: 100,
        charge_id: bankPayoutBody().charge_id as string,
        bank_account_name: 'Madalitso Kamwendo',
        bank_account_number: '1001000010',
      };
      // Made a minute and more ago: the settler's time to ask has come.
      await assert.rejects(
        initializeBankPayoutService(unanswered, { merchantId: merchant.id, mode: 'test' }, request, {
          now: Date.now() - 61_000,
        }),
        /connection was reset/,
      );
      const payout = await settledByWorker(ctx.gw, merchant.id, request.charge_id);
      assert.equal(payout.status, 'failed');
      assert.equal(payout.failure_reason, 'The payment could not be started.');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, payout), ['payout_reserve', 'payout_release']);
      assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '970.00', collection: 0 });
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 0, 'nothing stays reserved');
    });

    test('mobile money payouts still answer at once and send no recipient in their webhook', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      await fundMainBalance(ctx.gw, merchant, 1000);
      const res = await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 100 }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.status, 'success');
      const event = await payoutWebhook(receiver, merchant.webhook_secret);
      assert.equal(event.status, 'success');
      assert.equal('recipient_account_details' in event, false);
    });
  });
}
