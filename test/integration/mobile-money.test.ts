import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { ids } from '../../src/shared/ids.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { currentBody, TIMESTAMP, uniqueRef } from '../helpers/fixtures.ts';
import { assertFieldError, call, refusedKeyBody, useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  AIRTEL_REF,
  attemptChargeIds,
  AUTHORIZATION_KEYS,
  chargeBody,
  chargeRows,
  DECIMAL_TEXT,
  details,
  DETAILS_KEYS,
  eventCount,
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

const OPERATORS = [
  {
    id: 1,
    name: 'TNM Mpamba',
    ref_id: TNM_REF,
    short_code: 'tnm',
    logo: null,
    supports_withdrawals: false,
    supported_country: { name: 'Malawi', currency: 'MWK' },
  },
  {
    id: 2,
    name: 'Airtel Money',
    ref_id: AIRTEL_REF,
    short_code: 'airtel',
    logo: null,
    supports_withdrawals: true,
    supported_country: { name: 'Malawi', currency: 'MWK' },
  },
];

const AIRTEL_MONEY = { name: 'Airtel Money', ref_id: AIRTEL_REF, country: 'Malawi' };
const TNM_MPAMBA = { name: 'TNM Mpamba', ref_id: TNM_REF, country: 'Malawi' };
const DUPLICATE = { status: 'failed', message: { charge_id: ['The charge id has already been taken.'] }, data: null };
const NOT_FOUND = { status: 'failed', message: 'Transaction not found.', data: null };
/** Long enough to see a charge pending, short enough for the settler to end it quickly. */
const SANDBOX_DELAY_MS = 300;

const outbox = temporaryFolder('lipira-outbox-');
after(() => outbox.remove());

for (const kind of DATABASE_KINDS) {
  describe(`mobile money charges on ${kind}`, () => {
    describe('with the sandbox settling each charge after a short delay', () => {
      const ctx = useTestGateway(kind, {
        SANDBOX_MOBILE_DELAY: `${SANDBOX_DELAY_MS}ms`,
        WORKER_INTERVAL: '50ms',
        OUTBOX_DIR: outbox.dir,
      });
      const receivers: Receiver[] = [];
      after(() => Promise.all(receivers.map((receiver) => receiver.close())));
      const key = () => ctx.merchant.test_secret_key;

      test('GET /mobile-money lists both operators, with a test key, a live key or none', async () => {
        for (const withKey of [null, ctx.merchant.test_secret_key, ctx.merchant.live_secret_key]) {
          const res = await call(ctx.gw.url, '/mobile-money', { key: withKey });
          assert.equal(res.status, 200, res.text);
          assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
          assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
          assert.equal(res.body.status, 'success');
          assert.equal(res.body.message, 'Supported mobile money operators retrieved successfully.');
          assert.deepEqual(res.body.data, OPERATORS);
          for (const operator of res.body.data) {
            assert.deepEqual(sortedKeys(operator), [
              'id',
              'logo',
              'name',
              'ref_id',
              'short_code',
              'supported_country',
              'supports_withdrawals',
            ]);
            assert.equal(typeof operator.id, 'number');
            assert.equal(typeof operator.supports_withdrawals, 'boolean');
          }
        }
      });

      test('initialize answers 201 with the charge record, field by field', async () => {
        const body = chargeBody();
        const res = await initializeCharge(ctx.gw, key(), body);
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
        assert.equal(res.body.status, 'success');
        assert.equal(res.body.message, 'Payment initiated successfully.');
        const data = res.body.data;
        assert.deepEqual(sortedKeys(data), TYPED_KEYS);
        assert.equal(data.amount, 1000);
        assert.equal(data.charge_id, body.charge_id);
        assert.match(data.ref_id, /^\d{11}$/);
        assert.equal(data.trans_id, null);
        assert.equal(data.first_name, 'Jane');
        assert.equal(data.last_name, 'Banda');
        assert.equal(data.email, 'jane@example.com');
        assert.equal(data.status, 'pending');
        assert.equal(data.mobile, '+265990xxxx00');
        assert.equal(data.attempts, 1);
        assert.equal(data.currency, 'MWK');
        assert.equal(data.mode, 'sandbox');
        assert.match(data.created_at, TIMESTAMP);
        assert.equal(data.completed_at, null);
        assert.deepEqual(data.mobile_money, AIRTEL_MONEY);
        assert.equal(data.type, 'Direct API Payment');
        assert.equal(data.event_type, 'api.charge.payment');
        assert.deepEqual(sortedKeys(data.transaction_charges), ['amount', 'currency']);
        assert.equal(data.transaction_charges.currency, 'MWK');
        assert.match(data.transaction_charges.amount, DECIMAL_TEXT);
        const stored = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
        assert.equal(stored.mobile, '+265990xxxx00', 'only the masked number is stored');
      });

      test('verify answers top-level "successful" with authorization and logs', async () => {
        const body = chargeBody();
        const created = await initializeCharge(ctx.gw, key(), body);
        assert.equal(created.status, 201, created.text);
        const res = await verify(ctx.gw, key(), String(body.charge_id));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
        assert.equal(res.body.status, 'successful');
        assert.equal(typeof res.body.message, 'string');
        const data = res.body.data;
        assert.deepEqual(sortedKeys(data), VERIFY_KEYS);
        assert.equal(data.status, 'pending', 'verified at once, before the sandbox delay');
        assert.equal(data.ref_id, created.body.data.ref_id);
        assert.equal(data.mode, 'sandbox');
        assert.equal(data.type, 'Direct API Payment');
        assert.equal(data.event_type, 'api.charge.payment');
        assert.deepEqual(sortedKeys(data.authorization), AUTHORIZATION_KEYS);
        assert.deepEqual(data.authorization, {
          channel: 'Mobile Money',
          card_number: null,
          expiry: null,
          brand: null,
          provider: 'Airtel Money',
          mobile_number: '+265990xxxx00',
          completed_at: null,
        });
        assert.ok(Array.isArray(data.logs));
        assert.ok(data.logs.length >= 1);
        for (const log of data.logs) {
          assert.deepEqual(sortedKeys(log), ['created_at', 'message', 'type']);
          assert.equal(typeof log.type, 'string');
          assert.equal(typeof log.message, 'string');
          assert.match(log.created_at, TIMESTAMP);
        }
      });

      test('details of a charge carry everything verify carries (type, event_type, transaction_charges, authorization, logs) plus trace_id', async () => {
        const body = chargeBody();
        assert.equal((await initializeCharge(ctx.gw, key(), body)).status, 201);
        await settledByWorker(ctx.gw, ctx.merchant.id, String(body.charge_id));
        const res = await details(ctx.gw, key(), String(body.charge_id));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
        assert.equal(res.body.status, 'success');
        assert.equal(res.body.message, 'Transaction retrieved successfully.');
        const data = res.body.data;
        assert.deepEqual(sortedKeys(data), DETAILS_KEYS);
        assert.equal(data.type, 'Direct API Payment', 'a PHP client builds its record with a required string type');
        assert.equal(data.event_type, 'api.charge.payment');
        assert.deepEqual(data.transaction_charges, { currency: 'MWK', amount: '30.00' });
        assert.equal(data.trace_id, null);
        const { trace_id: _traceId, ...shown } = data;
        assert.deepEqual(
          shown,
          (await verify(ctx.gw, key(), String(body.charge_id))).body.data,
          'details show what verify shows, authorization and logs included',
        );
        assert.equal(data.amount, 1000);
        assert.equal(data.charge_id, body.charge_id);
        assert.equal(data.status, 'success');
        assert.equal(data.mode, 'sandbox');
        assert.equal(data.mobile, '+265990xxxx00');
        assert.equal(data.first_name, 'Jane');
        assert.equal(data.email, 'jane@example.com');
        assert.equal(typeof data.trans_id, 'string');
        assert.match(data.created_at, TIMESTAMP);
        assert.match(data.completed_at, TIMESTAMP);
        assert.deepEqual(data.mobile_money, AIRTEL_MONEY);
      });

      const outcomes = [
        {
          mobile: TEST_NUMBERS.airtelSuccess,
          ref: AIRTEL_REF,
          operator: AIRTEL_MONEY,
          masked: '+265990xxxx00',
          status: 'success',
        },
        {
          mobile: TEST_NUMBERS.airtelFailed,
          ref: AIRTEL_REF,
          operator: AIRTEL_MONEY,
          masked: '+265990xxxx01',
          status: 'failed',
        },
        {
          mobile: TEST_NUMBERS.tnmSuccess,
          ref: TNM_REF,
          operator: TNM_MPAMBA,
          masked: '+265899xxxx65',
          status: 'success',
        },
        {
          mobile: TEST_NUMBERS.tnmFailed,
          ref: TNM_REF,
          operator: TNM_MPAMBA,
          masked: '+265899xxxx66',
          status: 'failed',
        },
      ] as const;
      for (const outcome of outcomes) {
        test(`${outcome.mobile} (${outcome.operator.name}) is pending first, then ends ${outcome.status} on its own`, async () => {
          const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
          const body = chargeBody({ mobile: outcome.mobile, mobile_money_operator_ref_id: outcome.ref });
          const chargeId = String(body.charge_id);
          const started = Date.now();
          const created = await initializeCharge(ctx.gw, merchant.test_secret_key, body);
          assert.equal(created.status, 201, created.text);
          assert.equal(created.body.data.status, 'pending');
          assert.equal(created.body.data.mobile, outcome.masked);
          assert.deepEqual(created.body.data.mobile_money, outcome.operator);
          const early = await verify(ctx.gw, merchant.test_secret_key, chargeId);
          if (Date.now() - started < SANDBOX_DELAY_MS)
            assert.equal(early.body.data.status, 'pending', 'still pending before the sandbox delay');

          const row = await settledByWorker(ctx.gw, merchant.id, chargeId);
          assert.equal(row.status, outcome.status);
          assert.ok(
            Number(row.completed_at) - Number(row.created_at) >= SANDBOX_DELAY_MS - 5,
            'ended after the sandbox delay',
          );

          const res = await verify(ctx.gw, merchant.test_secret_key, chargeId);
          assert.equal(res.status, 200);
          assert.equal(res.body.status, 'successful');
          const data = res.body.data;
          assert.deepEqual(sortedKeys(data), VERIFY_KEYS);
          assert.equal(data.status, outcome.status);
          assert.equal(data.mobile, outcome.masked);
          assert.match(data.completed_at, TIMESTAMP);
          assert.equal(data.authorization.completed_at, data.completed_at);
          assert.equal(data.authorization.provider, outcome.operator.name);
          assert.equal(data.authorization.mobile_number, outcome.masked);
          assert.equal(data.logs.length, 2, JSON.stringify(data.logs));
          const balance = await walletBalance(ctx.gw, merchant.test_secret_key);
          if (outcome.status === 'success') {
            assert.equal(res.body.message, 'Payment authorized and completed successfully.');
            assert.equal(typeof data.trans_id, 'string');
            assert.deepEqual(data.transaction_charges, { currency: 'MWK', amount: '30.00' });
            assert.deepEqual(balance, { main: '0.00', collection: 970 });
          } else {
            assert.equal(data.trans_id, null);
            assert.deepEqual(data.transaction_charges, { currency: 'MWK', amount: '0.00' });
            assert.deepEqual(balance, { main: '0.00', collection: 0 });
          }

          const [request] = await receiver.waitFor(1);
          const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
          assert.equal(payload.event_type, 'api.charge.payment');
          assert.equal(payload.status, outcome.status);
          assert.equal(payload.charge_id, chargeId);
          assert.equal(payload.chargeId, chargeId);
          assert.equal(payload.reference, created.body.data.ref_id);
          assert.equal(payload.amount, 1000);
          assert.equal(payload.currency, 'MWK');
          assert.equal(payload.type, 'Direct API Payment');
          assert.equal(payload.email, 'jane@example.com');
          assert.equal(payload.charge, outcome.status === 'success' ? 30 : 0);
          assert.equal(receiver.received.length, 1);
        });
      }

      test('checkout attempts answer on verify and details by their charge_id', async () => {
        const merchant = await ctx.gw.newMerchant();
        const failed = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelFailed);
        const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.tnmSuccess);
        for (const [payment, status, masked, operator] of [
          [failed, 'failed', '+265990xxxx01', AIRTEL_MONEY],
          [paid, 'success', '+265899xxxx65', TNM_MPAMBA],
        ] as const) {
          const [chargeId, ...more] = await attemptChargeIds(ctx.gw, merchant.id, payment.txRef);
          assert.equal(more.length, 0);
          const verified = await verify(ctx.gw, merchant.test_secret_key, chargeId!);
          assert.equal(verified.status, 200, verified.text);
          assert.equal(verified.body.status, 'successful');
          assert.deepEqual(sortedKeys(verified.body.data), VERIFY_KEYS);
          assert.equal(verified.body.data.charge_id, chargeId);
          assert.equal(verified.body.data.status, status);
          assert.equal(verified.body.data.amount, 1000);
          assert.equal(verified.body.data.mobile, masked);
          assert.equal(verified.body.data.event_type, 'checkout.payment');
          assert.equal(verified.body.data.type, 'API Payment (Checkout)');
          assert.equal(verified.body.data.first_name, 'Jane');
          assert.deepEqual(verified.body.data.mobile_money, operator);
          const shown = await details(ctx.gw, merchant.test_secret_key, chargeId!);
          assert.equal(shown.status, 200, shown.text);
          assert.deepEqual(sortedKeys(shown.body.data), DETAILS_KEYS);
          assert.equal(shown.body.data.status, status);
          assert.equal(shown.body.data.type, 'API Payment (Checkout)');
          assert.equal(shown.body.data.event_type, 'checkout.payment');
          assert.equal(
            (await verify(ctx.gw, ctx.merchant.test_secret_key, chargeId!)).status,
            404,
            'another merchant cannot see the attempt',
          );
        }
        assert.deepEqual(
          await walletBalance(ctx.gw, merchant.test_secret_key),
          { main: '0.00', collection: 970 },
          'the paid checkout credited the ledger',
        );
      });

      test('the mobile number is accepted in every common form and stored masked', async () => {
        const forms = [
          ['0990000000', '+265990xxxx00', AIRTEL_REF],
          ['990000000', '+265990xxxx00', AIRTEL_REF],
          ['265990000000', '+265990xxxx00', AIRTEL_REF],
          ['+265990000000', '+265990xxxx00', AIRTEL_REF],
          ['+265 99 000 0000', '+265990xxxx00', AIRTEL_REF],
          ['099-000-0000', '+265990xxxx00', AIRTEL_REF],
          ['0899817565', '+265899xxxx65', TNM_REF],
          ['899817565', '+265899xxxx65', TNM_REF],
          ['265899817565', '+265899xxxx65', TNM_REF],
          ['+265899817565', '+265899xxxx65', TNM_REF],
        ] as const;
        for (const [mobile, masked, ref] of forms) {
          const res = await initializeCharge(ctx.gw, key(), chargeBody({ mobile, mobile_money_operator_ref_id: ref }));
          assert.equal(res.status, 201, `${mobile}: ${res.text}`);
          assert.equal(res.body.data.mobile, masked, mobile);
        }
      });

      test('malformed numbers are 400 and leave no record', async () => {
        const bad: Array<[unknown, string]> = [
          ['12345', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['0770000000', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['09900000000', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['+1 555 010 0000', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['+254990000000', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['099000000O', 'The mobile must be an Airtel Money or TNM Mpamba number.'],
          ['', 'The mobile field is required.'],
          [990000000, 'The mobile must be a string.'],
        ];
        for (const [mobile, message] of bad) {
          const body = chargeBody({ mobile });
          assertFieldError(await initializeCharge(ctx.gw, key(), body), 'mobile', message);
          assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
        }
      });

      test('a well-formed number that is not a test number is refused at once, naming the test numbers', async () => {
        for (const [mobile, ref] of [
          ['0991234567', AIRTEL_REF],
          ['0881234567', TNM_REF],
        ] as const) {
          const body = chargeBody({ mobile, mobile_money_operator_ref_id: ref });
          const res = await initializeCharge(ctx.gw, key(), body);
          assertFieldError(res, 'mobile', /test numbers/);
          for (const number of Object.values(TEST_NUMBERS))
            assert.ok(res.body.message.mobile[0].includes(number), `${number} is listed`);
          assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
        }
      });

      test('an operator ref_id that does not exist is 400', async () => {
        for (const ref of ['00000000-0000-4000-8000-000000000000', 'airtel', '2']) {
          const body = chargeBody({ mobile_money_operator_ref_id: ref });
          assertFieldError(
            await initializeCharge(ctx.gw, key(), body),
            'mobile_money_operator_ref_id',
            'The selected mobile money operator ref id is invalid.',
          );
          assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
        }
      });

      test('a number of the other operator is 400', async () => {
        const tnmAsAirtel = chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: AIRTEL_REF });
        assertFieldError(
          await initializeCharge(ctx.gw, key(), tnmAsAirtel),
          'mobile',
          'The mobile is a TNM Mpamba number, not Airtel Money.',
        );
        const airtelAsTnm = chargeBody({ mobile: TEST_NUMBERS.airtelSuccess, mobile_money_operator_ref_id: TNM_REF });
        assertFieldError(
          await initializeCharge(ctx.gw, key(), airtelAsTnm),
          'mobile',
          'The mobile is an Airtel Money number, not TNM Mpamba.',
        );
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(tnmAsAirtel.charge_id))).length, 0);
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(airtelAsTnm.charge_id))).length, 0);
      });

      test('currency may be left out (or null or empty) or be MWK; USD (or any other) is a clear 400 and leaves no record', async () => {
        for (const currency of [undefined, null, '', 'MWK']) {
          const res = await initializeCharge(ctx.gw, key(), chargeBody({ currency }));
          assert.equal(res.status, 201, `${String(currency)}: ${res.text}`);
          assert.equal(res.body.data.currency, 'MWK');
        }
        for (const currency of ['USD', 'GBP', 'mwk']) {
          const body = chargeBody({ currency });
          const res = await initializeCharge(ctx.gw, key(), body);
          assert.deepEqual(
            res.body,
            {
              status: 'failed',
              message: {
                currency: ['The currency must be MWK: Airtel Money and TNM Mpamba take payments in MWK only.'],
              },
              data: null,
            },
            currency,
          );
          assert.equal(res.status, 400);
          assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
        }
      });

      test('amount is a whole number from 1 to 2147483647, as a number or a numeric string', async () => {
        for (const [amount, expected] of [
          [1, 1],
          ['1000', 1000],
          [' 250 ', 250],
          [2147483647, 2147483647],
          ['2147483647', 2147483647],
        ] as const) {
          const res = await initializeCharge(ctx.gw, key(), chargeBody({ amount }));
          assert.equal(res.status, 201, `${JSON.stringify(amount)}: ${res.text}`);
          assert.equal(res.body.data.amount, expected);
        }
        const bad: Array<[unknown, string]> = [
          ['10.5', 'The amount must be an integer.'],
          [10.5, 'The amount must be an integer.'],
          ['abc', 'The amount must be an integer.'],
          [true, 'The amount must be an integer.'],
          [0, 'The amount must be at least 1.'],
          [-1, 'The amount must be at least 1.'],
          ['0', 'The amount must be at least 1.'],
          [2147483648, 'The amount must not be greater than 2147483647.'],
          ['2147483648', 'The amount must not be greater than 2147483647.'],
        ];
        for (const [amount, message] of bad) {
          const body = chargeBody({ amount });
          assertFieldError(await initializeCharge(ctx.gw, key(), body), 'amount', message);
          assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
        }
        for (const literal of ['1e3', '1000.0', '1E3']) {
          const raw = JSON.stringify(chargeBody({ amount: 0 })).replace('"amount":0', `"amount":${literal}`);
          const res = await call(ctx.gw.url, '/mobile-money/payments/initialize', {
            key: key(),
            rawBody: raw,
            headers: { 'content-type': 'application/json' },
          });
          assertFieldError(res, 'amount', 'The amount must be an integer.');
        }
      });

      test('required fields, charge_id format and email are checked', async () => {
        const empty = await call(ctx.gw.url, '/mobile-money/payments/initialize', {
          key: key(),
          rawBody: '',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(empty.status, 400);
        assert.deepEqual(empty.body, {
          status: 'failed',
          message: {
            mobile: ['The mobile field is required.'],
            mobile_money_operator_ref_id: ['The mobile money operator ref id field is required.'],
            amount: ['The amount field is required.'],
            charge_id: ['The charge id field is required.'],
          },
          data: null,
        });
        assertFieldError(
          await initializeCharge(ctx.gw, key(), chargeBody({ charge_id: 'has space' })),
          'charge_id',
          'The charge id format is invalid.',
        );
        assertFieldError(
          await initializeCharge(ctx.gw, key(), chargeBody({ charge_id: 'a/b' })),
          'charge_id',
          'The charge id format is invalid.',
        );
        assertFieldError(
          await initializeCharge(ctx.gw, key(), chargeBody({ charge_id: 'x'.repeat(101) })),
          'charge_id',
          'The charge id must not be greater than 100 characters.',
        );
        assertFieldError(
          await initializeCharge(ctx.gw, key(), chargeBody({ email: 'not-an-email' })),
          'email',
          'The email must be a valid email address.',
        );
        const nulls = await initializeCharge(
          ctx.gw,
          key(),
          chargeBody({ email: null, first_name: null, last_name: null, unknown_field: 'ignored' }),
        );
        assert.equal(nulls.status, 201, nulls.text);
        assert.equal(nulls.body.data.email, null);
        assert.equal(nulls.body.data.first_name, null);
        const odd = chargeBody({ charge_id: `A-z_0.9-${Date.now()}` });
        const res = await initializeCharge(ctx.gw, key(), odd);
        assert.equal(res.status, 201, res.text);
        assert.equal(
          (await verify(ctx.gw, key(), String(odd.charge_id))).body.data.charge_id,
          odd.charge_id,
          'an unencoded charge_id with dots works in the path',
        );
      });

      // A charge_id of only dots passes the character rule of docs/integrate/api-reference.md#references, but HTTP clients resolve
      // `/payments/../verify` as a dot-segment, so such a charge can never be verified or shown.
      test('a charge_id made only of dots is refused at create', async () => {
        for (const chargeId of ['.', '..']) {
          const res = await initializeCharge(ctx.gw, key(), chargeBody({ charge_id: chargeId }));
          assertFieldError(res, 'charge_id', 'The charge id format is invalid.');
        }
      });

      test('an unknown charge_id is 404 "Transaction not found." on verify and details', async () => {
        for (const res of [
          await verify(ctx.gw, key(), 'no-such-charge'),
          await details(ctx.gw, key(), 'no-such-charge'),
          await verify(ctx.gw, key(), 'no-such-charge', 'success'),
        ]) {
          assert.equal(res.status, 404);
          assert.deepEqual(res.body, NOT_FOUND);
        }
      });

      test('a charge_id holding a NUL (which PostgreSQL cannot even compare) is 404 on verify and details, not a 500', async () => {
        for (const res of [
          await verify(ctx.gw, key(), 'a%00b'),
          await details(ctx.gw, key(), '%00'),
          await verify(ctx.gw, key(), 'x%00', 'success'),
        ]) {
          assert.equal(res.status, 404, res.text);
          assert.deepEqual(res.body, NOT_FOUND);
        }
      });

      test('every route but the operator list needs a secret key', async () => {
        const body = chargeBody();
        assert.equal((await initializeCharge(ctx.gw, key(), body)).status, 201);
        const unauthenticated = { status: 'failed', message: 'Unauthenticated.', data: null };
        const answers = [
          await call(ctx.gw.url, '/mobile-money/payments/initialize', { body: chargeBody() }),
          await call(ctx.gw.url, '/mobile-money/payouts/initialize', { body: payoutBody() }),
          await verify(ctx.gw, null, String(body.charge_id)),
          await details(ctx.gw, null, String(body.charge_id)),
          await call(ctx.gw.url, '/wallet-balance?currency=MWK'),
          await verify(ctx.gw, `sec-test-${'x'.repeat(32)}`, String(body.charge_id)),
        ];
        for (const res of answers) {
          assert.equal(res.status, 401, res.text);
          assert.deepEqual(res.body, unauthenticated);
        }
        const publicKey = ctx.merchant.test_public_key;
        assert.deepEqual((await verify(ctx.gw, publicKey, String(body.charge_id))).body, refusedKeyBody(publicKey));
      });

      test('a record is invisible to the other mode and to other merchants', async () => {
        const body = chargeBody();
        const chargeId = String(body.charge_id);
        assert.equal((await initializeCharge(ctx.gw, key(), body)).status, 201);
        const other = await ctx.gw.newMerchant('Other Shop');
        for (const res of [
          await verify(ctx.gw, other.test_secret_key, chargeId),
          await details(ctx.gw, other.test_secret_key, chargeId),
          await verify(ctx.gw, other.test_secret_key, chargeId, 'failed'),
          await verify(ctx.gw, ctx.merchant.live_secret_key, chargeId),
          await details(ctx.gw, ctx.merchant.live_secret_key, chargeId),
        ]) {
          assert.equal(res.status, 404, res.text);
          assert.deepEqual(res.body, NOT_FOUND);
        }

        // Live keys cannot create charges until a live connector exists: a live record is written directly.
        const test = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
        const liveOnly = uniqueRef('live');
        const db = ctx.gw.gateway.database.db;
        await db
          .insertInto('charges')
          .values({
            ...test,
            id: ids.chargeRef(),
            mode: 'live',
            ref_id: ids.reference(),
            charge_id: liveOnly,
            status: 'pending',
            check_at: null,
          })
          .execute();
        await db
          .insertInto('charges')
          .values({
            ...test,
            id: ids.chargeRef(),
            mode: 'live',
            ref_id: ids.reference(),
            charge_id: chargeId,
            amount_minor: 777_00,
            check_at: null,
          })
          .execute();
        for (const res of [await verify(ctx.gw, key(), liveOnly), await details(ctx.gw, key(), liveOnly)]) {
          assert.equal(res.status, 404, 'a test key cannot see a live record');
          assert.deepEqual(res.body, NOT_FOUND);
        }
        const live = await details(ctx.gw, ctx.merchant.live_secret_key, liveOnly);
        assert.equal(live.status, 200, live.text);
        assert.equal(live.body.data.mode, 'live');
        assert.equal(
          (await details(ctx.gw, ctx.merchant.live_secret_key, chargeId)).body.data.amount,
          777,
          'one charge_id in each mode: each key sees its own',
        );
        assert.equal((await details(ctx.gw, key(), chargeId)).body.data.amount, 1000);
      });

      test('a live key cannot create charges while no live connector exists: 400, no record', async () => {
        const body = chargeBody();
        const res = await initializeCharge(ctx.gw, ctx.merchant.live_secret_key, body);
        assertFieldError(res, 'mobile', /not available/);
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 0);
      });
    });

    describe('with charges held pending (the sandbox delay is an hour)', () => {
      const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h', WORKER_INTERVAL: '50ms', OUTBOX_DIR: outbox.dir });
      const receivers: Receiver[] = [];
      after(() => Promise.all(receivers.map((receiver) => receiver.close())));
      const key = () => ctx.merchant.test_secret_key;

      async function pendingCharge(merchantKey: string, overrides: Record<string, unknown> = {}) {
        const body = chargeBody(overrides);
        const res = await initializeCharge(ctx.gw, merchantKey, body);
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.data.status, 'pending');
        return { body, chargeId: String(body.charge_id), record: res.body.data };
      }

      test('transaction_status=success settles a pending charge: the ledger is credited and the webhook sent', async () => {
        const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
        // The failing test number: the requested outcome wins over the number's own.
        const { chargeId, record } = await pendingCharge(merchant.test_secret_key, {
          mobile: TEST_NUMBERS.airtelFailed,
        });
        const feesBefore = await accountMinor(ctx.gw, 'system', 'fees');
        const res = await verify(ctx.gw, merchant.test_secret_key, chargeId, 'success');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, 'successful');
        assert.equal(res.body.message, 'Payment authorized and completed successfully.');
        assert.deepEqual(sortedKeys(res.body.data), VERIFY_KEYS);
        assert.equal(res.body.data.status, 'success');
        assert.match(res.body.data.completed_at, TIMESTAMP);
        assert.deepEqual(res.body.data.transaction_charges, { currency: 'MWK', amount: '30.00' });
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 970 });
        assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 970_00);
        assert.equal((await accountMinor(ctx.gw, 'system', 'fees')) - feesBefore, 30_00, 'the fee account got the 3 %');
        const row = await testChargeRow(ctx.gw, merchant.id, chargeId);
        assert.deepEqual(await ledgerKindsFor(ctx.gw, row), ['collection']);
        const [request] = await receiver.waitFor(1);
        const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
        assert.equal(payload.event_type, 'api.charge.payment');
        assert.equal(payload.status, 'success');
        assert.equal(payload.charge_id, chargeId);
        assert.equal(payload.reference, record.ref_id);
        assert.equal((await details(ctx.gw, merchant.test_secret_key, chargeId)).body.data.status, 'success');
      });

      test('transaction_status=failed fails a pending charge and sends a failed webhook; no money moves', async () => {
        const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
        const { chargeId } = await pendingCharge(merchant.test_secret_key);
        const res = await verify(ctx.gw, merchant.test_secret_key, chargeId, 'failed');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, 'successful');
        assert.equal(res.body.message, 'Payment failed.');
        assert.equal(res.body.data.status, 'failed');
        assert.equal(res.body.data.trans_id, null);
        assert.match(res.body.data.completed_at, TIMESTAMP);
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 0 });
        assert.deepEqual(await ledgerKindsFor(ctx.gw, await testChargeRow(ctx.gw, merchant.id, chargeId)), []);
        const [request] = await receiver.waitFor(1);
        const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
        assert.equal(payload.event_type, 'api.charge.payment');
        assert.equal(payload.status, 'failed');
        assert.equal(payload.chargeId, chargeId);
        assert.match(String(payload.failure_reason), /failed/);
      });

      test('transaction_status=pending, or none, leaves a pending charge pending', async () => {
        const { chargeId } = await pendingCharge(key());
        for (const status of ['pending', undefined]) {
          const res = await verify(ctx.gw, key(), chargeId, status);
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.status, 'successful');
          assert.equal(res.body.data.status, 'pending');
          assert.equal(res.body.data.completed_at, null);
        }
        const row = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
        assert.equal(row.status, 'pending');
        assert.equal(await eventCount(ctx.gw, row), 0);
      });

      test('transaction_status on a charge that already ended changes nothing', async () => {
        const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
        const paid = await pendingCharge(merchant.test_secret_key);
        const failed = await pendingCharge(merchant.test_secret_key);
        assert.equal(
          (await verify(ctx.gw, merchant.test_secret_key, paid.chargeId, 'success')).body.data.status,
          'success',
        );
        assert.equal(
          (await verify(ctx.gw, merchant.test_secret_key, failed.chargeId, 'failed')).body.data.status,
          'failed',
        );
        const before = await verify(ctx.gw, merchant.test_secret_key, paid.chargeId);
        const balance = await walletBalance(ctx.gw, merchant.test_secret_key);
        for (const status of ['failed', 'pending', 'success']) {
          const again = await verify(ctx.gw, merchant.test_secret_key, paid.chargeId, status);
          assert.equal(again.status, 200);
          assert.deepEqual(again.body, before.body, `transaction_status=${status} on a paid charge`);
          assert.equal(
            (await verify(ctx.gw, merchant.test_secret_key, failed.chargeId, status)).body.data.status,
            'failed',
          );
        }
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), balance);
        const paidRow = await testChargeRow(ctx.gw, merchant.id, paid.chargeId);
        const failedRow = await testChargeRow(ctx.gw, merchant.id, failed.chargeId);
        assert.deepEqual(await ledgerKindsFor(ctx.gw, paidRow), ['collection'], 'credited once');
        assert.deepEqual(await ledgerKindsFor(ctx.gw, failedRow), []);
        assert.equal(await eventCount(ctx.gw, paidRow), 1);
        assert.equal(await eventCount(ctx.gw, failedRow), 1);
        await receiver.waitFor(2);
        assert.deepEqual(receiver.received.map((r) => JSON.parse(r.body).status).sort(), ['failed', 'success']);
      });

      test('concurrent settlements of one charge end it once: one outcome, one credit, one event', async () => {
        const { merchant } = await merchantWithReceiver(ctx.gw, receivers);
        const { chargeId } = await pendingCharge(merchant.test_secret_key);
        const answers = await Promise.all(
          ['success', 'failed', 'success', 'failed', 'success', 'failed'].map((status) =>
            verify(ctx.gw, merchant.test_secret_key, chargeId, status),
          ),
        );
        for (const res of answers) assert.equal(res.status, 200, res.text);
        const row = await testChargeRow(ctx.gw, merchant.id, chargeId);
        assert.notEqual(row.status, 'pending');
        for (const res of answers) assert.equal(res.body.data.status, row.status, 'every answer shows the one outcome');
        assert.equal(await eventCount(ctx.gw, row), 1);
        assert.deepEqual(await ledgerKindsFor(ctx.gw, row), row.status === 'success' ? ['collection'] : []);
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), {
          main: '0.00',
          collection: row.status === 'success' ? 970 : 0,
        });
      });

      test('transaction_status settles a pending checkout attempt as a real completion would: the session is paid', async () => {
        const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
        const session = currentBody();
        const created = await call(ctx.gw.url, '/payment', { key: merchant.test_secret_key, body: session });
        assert.equal(created.status, 201, created.text);
        const client = new CheckoutClient(ctx.gw.url);
        const pagePath = new URL(created.body.data.checkout_url).pathname;
        await client.get(pagePath);
        assert.equal(
          (await client.post(`${pagePath}/pay/mobile-money`, { mobile: TEST_NUMBERS.airtelSuccess, operator: '' }))
            .status,
          303,
        );
        const [chargeId] = await attemptChargeIds(ctx.gw, merchant.id, String(session.tx_ref));
        assert.equal((await verify(ctx.gw, merchant.test_secret_key, chargeId!)).body.data.status, 'pending');
        const res = await verify(ctx.gw, merchant.test_secret_key, chargeId!, 'success');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.status, 'success');
        assert.equal(res.body.data.event_type, 'checkout.payment');
        const paid = await call(ctx.gw.url, `/verify-payment/${String(session.tx_ref)}`, {
          key: merchant.test_secret_key,
        });
        assert.equal(paid.body.data.status, 'success');
        assert.deepEqual(await walletBalance(ctx.gw, merchant.test_secret_key), { main: '0.00', collection: 970 });
        const [request] = await receiver.waitFor(1);
        const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
        assert.equal(payload.event_type, 'checkout.payment');
        assert.equal(payload.charge_id, chargeId);
        assert.equal(payload.tx_ref, session.tx_ref);
      });

      test('a live key may not use transaction_status (400), and the record is untouched', async () => {
        const { chargeId } = await pendingCharge(key());
        const test = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
        const liveId = uniqueRef('live');
        await ctx.gw.gateway.database.db
          .insertInto('charges')
          .values({
            ...test,
            id: ids.chargeRef(),
            mode: 'live',
            ref_id: ids.reference(),
            charge_id: liveId,
            check_at: null,
          })
          .execute();
        for (const [id, status] of [
          [liveId, 'success'],
          [liveId, 'failed'],
          [liveId, 'pending'],
          ['no-such-charge', 'success'],
        ] as const) {
          const res = await verify(ctx.gw, ctx.merchant.live_secret_key, id, status);
          assertFieldError(res, 'transaction_status', /test key/);
        }
        const live = await verify(ctx.gw, ctx.merchant.live_secret_key, liveId);
        assert.equal(live.status, 200, live.text);
        assert.equal(live.body.data.status, 'pending');
        assert.equal(live.body.data.mode, 'live');
        assert.deepEqual(await walletBalance(ctx.gw, ctx.merchant.live_secret_key), { main: '0.00', collection: 0 });
      });

      test('an unknown transaction_status is 400', async () => {
        const { chargeId } = await pendingCharge(key());
        for (const status of ['successful', 'SUCCESS', 'done']) {
          assertFieldError(
            await verify(ctx.gw, key(), chargeId, status),
            'transaction_status',
            'The selected transaction status is invalid.',
          );
        }
        assert.equal((await testChargeRow(ctx.gw, ctx.merchant.id, chargeId)).status, 'pending');
      });

      test('repeating a create with the same charge_id and parameters while pending answers 201 with the same record', async () => {
        const { body, record } = await pendingCharge(key());
        const again = await initializeCharge(ctx.gw, key(), body);
        assert.equal(again.status, 201, again.text);
        assert.deepEqual(again.body.data, record);
        const sameInOtherForms = await initializeCharge(ctx.gw, key(), {
          ...body,
          mobile: '+265990000000',
          amount: '1000',
        });
        assert.equal(sameInOtherForms.status, 201, sameInOtherForms.text);
        assert.equal(
          sameInOtherForms.body.data.ref_id,
          record.ref_id,
          'the same request written differently is the same request',
        );
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 1);
      });

      // docs/integrate/api-reference.md#tolerance says unknown fields are ignored, yet the direct-charge request hash includes them
      // (src/payments/direct-records.ts hashDirectRequest spreads the whole body): a retry that carries
      // an extra field is answered as a duplicate. Checkout sessions hash only known fields.
      test('an unknown field does not turn a retry into a duplicate', async () => {
        const { body, record } = await pendingCharge(key());
        const again = await initializeCharge(ctx.gw, key(), { ...body, uuid: 'ignored-by-contract' });
        assert.equal(again.status, 201, again.text);
        assert.equal(again.body.data.ref_id, record.ref_id);
      });

      test('the same charge_id with different parameters is a 400 duplicate', async () => {
        const { body, record } = await pendingCharge(key());
        for (const change of [
          { amount: 1001 },
          { email: 'other@example.com' },
          { first_name: 'Someone' },
          { mobile: TEST_NUMBERS.airtelFailed },
          { mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF },
        ]) {
          const res = await initializeCharge(ctx.gw, key(), { ...body, ...change });
          assert.equal(res.status, 400, JSON.stringify(change));
          assert.deepEqual(res.body, DUPLICATE);
        }
        const payout = await initializePayout(ctx.gw, key(), payoutBody({ charge_id: body.charge_id }));
        assert.deepEqual(payout.body, DUPLICATE, 'payouts share the charge_id space');
        const rows = await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id));
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.ref_id, record.ref_id);
        assert.equal(rows[0]!.amount_minor, 1000_00);
      });

      test('a charge_id whose charge ended is a 400 duplicate, even with the same parameters', async () => {
        for (const outcome of ['success', 'failed']) {
          const { body, chargeId } = await pendingCharge(key());
          assert.equal((await verify(ctx.gw, key(), chargeId, outcome)).body.data.status, outcome);
          const res = await initializeCharge(ctx.gw, key(), body);
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body, DUPLICATE);
        }
      });

      test('concurrent identical creates make one record; all of them answer with it', async () => {
        const body = chargeBody();
        const answers = await Promise.all(Array.from({ length: 5 }, () => initializeCharge(ctx.gw, key(), body)));
        for (const res of answers) assert.equal(res.status, 201, res.text);
        assert.equal(new Set(answers.map((res) => res.body.data.ref_id)).size, 1);
        assert.equal((await chargeRows(ctx.gw, ctx.merchant.id, String(body.charge_id))).length, 1);
      });

      test('concurrent creates with one charge_id and different amounts make one record; the rest are duplicates', async () => {
        const chargeId = uniqueRef('race');
        const answers = await Promise.all(
          [1000, 2000, 3000, 4000].map((amount) =>
            initializeCharge(ctx.gw, key(), chargeBody({ charge_id: chargeId, amount })),
          ),
        );
        const created = answers.filter((res) => res.status === 201);
        assert.equal(created.length, 1, answers.map((res) => res.text).join('\n'));
        for (const res of answers.filter((r) => r.status !== 201)) assert.deepEqual(res.body, DUPLICATE);
        const rows = await chargeRows(ctx.gw, ctx.merchant.id, chargeId);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.amount_minor, created[0]!.body.data.amount * 100);
      });

      test('the same charge_id is free in another merchant', async () => {
        const { body } = await pendingCharge(key());
        const other = await ctx.gw.newMerchant('Other Shop');
        const res = await initializeCharge(ctx.gw, other.test_secret_key, body);
        assert.equal(res.status, 201, res.text);
        assert.equal(
          (await details(ctx.gw, other.test_secret_key, String(body.charge_id))).body.data.ref_id,
          res.body.data.ref_id,
        );
      });
    });
  });
}
