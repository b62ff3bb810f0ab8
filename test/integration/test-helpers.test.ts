import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Charge } from '../../src/core/charge-repository.ts';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { cardBody, chargeCard } from '../helpers/cards.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertFieldError, call, useTestGateway, type ApiResponse, type TestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  chargeBody,
  eventually,
  initializeCharge,
  ledgerKindsFor,
  merchantWithReceiver,
  payoutBody,
  initializePayout,
  testChargeRow,
} from '../helpers/mobile-money.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';

/**
 * The test helpers (src/test-helpers/) over real HTTP: each one leaves what the real event leaves
 * (ledger, webhook delivery, receipts, the session's ending), refuses wrong states with an
 * envelope, is not there for a live key, and moves money once however often it is called at once.
 * The sandbox's own delay is an hour here, so nothing but the helpers ends a payment.
 */
const ENV = { SANDBOX_MOBILE_DELAY: '1h', WEBHOOK_RETRY_SCHEDULE: '1h,1h' };

const helper = (gw: TestGateway, key: string | null, path: string, body?: unknown): Promise<ApiResponse> =>
  call(gw.url, `/test-helpers/${path}`, { method: 'POST', key, body });

const rowsOf = (gw: TestGateway) => gw.gateway.database.db;

async function deliveriesOf(gw: TestGateway, merchantId: string, chargeId: string) {
  return rowsOf(gw)
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('charge_id', '=', chargeId)
    .execute();
}

async function emailsAbout(gw: TestGateway, charge: Charge): Promise<number> {
  const rows = await rowsOf(gw).selectFrom('events').select('id').where('subject_id', '=', charge.id).execute();
  if (rows.length === 0) return 0;
  const emails = await rowsOf(gw)
    .selectFrom('emails')
    .select('id')
    .where(
      'event_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return emails.length;
}

function assertRefused(res: ApiResponse, status: number, message: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.status, 'failed');
  assert.equal(res.body.data, null);
  assert.match(String(res.body.message), message);
}

for (const kind of DATABASE_KINDS) {
  describe(`test helpers (${kind})`, () => {
    const ctx = useTestGateway(kind, ENV);
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));
    const key = () => ctx.merchant.test_secret_key;

    async function pendingCharge(overrides: Record<string, unknown> = {}): Promise<string> {
      const body = chargeBody(overrides);
      const created = await initializeCharge(ctx.gw, key(), body);
      assert.equal(created.status, 201, created.text);
      return String(body.charge_id);
    }

    test('complete ends a mobile money charge as its approval would: ledger, webhook, receipt, verification', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const body = chargeBody({ amount: 2000 });
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const chargeId = String(body.charge_id);
      const done = await helper(ctx.gw, merchant.test_secret_key, `direct-charges/${chargeId}/complete`, {
        status: 'success',
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.data.status, 'success');
      assert.equal(done.body.data.charge_id, chargeId);
      const charge = await testChargeRow(ctx.gw, merchant.id, chargeId);
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), ['collection']);
      assert.equal(
        await accountMinor(ctx.gw, merchant.id, 'collection'),
        200_000 - 6_000,
        'credited net of the 3 % fee',
      );
      const [delivery] = await deliveriesOf(ctx.gw, merchant.id, chargeId);
      assert.equal(delivery?.event_type, 'api.charge.payment');
      assert.ok((await emailsAbout(ctx.gw, charge)) > 0, 'a receipt is queued');
      const [sent] = await receiver.waitFor(1);
      assert.equal(JSON.parse(sent!.body).status, 'success');
      const verified = await call(ctx.gw.url, `/mobile-money/payments/${chargeId}/verify`, {
        key: merchant.test_secret_key,
      });
      assert.equal(verified.body.data.status, 'success');
      assert.ok(verified.body.data.logs.some((log: { message: string }) => log.message === 'Payment completed'));

      const again = await helper(ctx.gw, merchant.test_secret_key, `direct-charges/${chargeId}/complete`, {
        status: 'failed',
      });
      assertRefused(again, 409, /already ended \(success\)/);
    });

    test('complete with failed records the failure code; a failure moves no money', async () => {
      const chargeId = await pendingCharge();
      const failed = await helper(ctx.gw, key(), `direct-charges/${chargeId}/complete`, {
        status: 'failed',
        failure_code: 'insufficient_funds',
      });
      assert.equal(failed.status, 200, failed.text);
      const charge = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
      assert.equal(charge.status, 'failed');
      assert.equal(charge.failure_code, 'insufficient_funds');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), []);
      assert.equal((await deliveriesOf(ctx.gw, ctx.merchant.id, chargeId)).length, 0, 'no webhook URL, no delivery');
      assert.equal(
        (await rowsOf(ctx.gw).selectFrom('events').select('id').where('subject_id', '=', charge.id).execute()).length,
        1,
        'its api.charge.payment event',
      );
    });

    test('complete ends a card charge waiting for 3-D Secure; its page then shows it ended', async () => {
      const body = cardBody();
      const started = await chargeCard(ctx.gw, key(), body);
      assert.equal(started.status, 200, started.text);
      const done = await helper(ctx.gw, key(), `direct-charges/${String(body.charge_id)}/complete`, {
        status: 'success',
      });
      assert.equal(done.status, 200, done.text);
      const charge = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
      assert.equal(charge.status, 'success');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), ['collection']);
      const page = await fetch(started.body['3ds_auth_link'], { redirect: 'manual' });
      assert.doesNotMatch(await page.text(), /name="otp"/, 'the page no longer asks for the code');
    });

    test('concurrent completes of one charge credit it once, write one event, and agree on the answer', async () => {
      const chargeId = await pendingCharge({ amount: 3000 });
      const before = await accountMinor(ctx.gw, ctx.merchant.id, 'collection');
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          helper(ctx.gw, key(), `direct-charges/${chargeId}/complete`, { status: 'success' }),
        ),
      );
      for (const answer of answers) assert.ok([200, 409].includes(answer.status), answer.text);
      assert.ok(answers.some((answer) => answer.status === 200));
      const charge = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), ['collection']);
      assert.equal((await accountMinor(ctx.gw, ctx.merchant.id, 'collection')) - before, 300_000 - 9_000);
      const events = await rowsOf(ctx.gw)
        .selectFrom('events')
        .select('id')
        .where('subject_id', '=', charge.id)
        .execute();
      assert.equal(events.length, 1);
    });

    test('receive pays a bank transfer with the exact amount, and fails it with any other', async () => {
      const exact = bankTransferBody({ amount: 25000 });
      assert.equal((await initializeBankTransfer(ctx.gw, key(), exact)).status, 201);
      const paid = await helper(ctx.gw, key(), `bank-transfers/${String(exact.charge_id)}/receive`, { amount: 25000 });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.data.status, 'success');
      const details = await call(ctx.gw.url, `/direct-charge/transactions/${String(exact.charge_id)}/details`, {
        key: key(),
      });
      assert.equal(details.body.data.transaction.status, 'success');
      assert.equal(details.body.data.transaction.authorization.payer_account_name, 'Test Payer');
      const paidCharge = await testChargeRow(ctx.gw, ctx.merchant.id, String(exact.charge_id));
      assert.deepEqual(await ledgerKindsFor(ctx.gw, paidCharge), ['collection']);

      for (const [amount, arrived] of [
        [25000, 24999],
        [25000, 30000],
      ] as const) {
        const body = bankTransferBody({ amount });
        assert.equal((await initializeBankTransfer(ctx.gw, key(), body)).status, 201);
        const answer = await helper(ctx.gw, key(), `bank-transfers/${String(body.charge_id)}/receive`, {
          amount: arrived,
        });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.data.status, 'failed');
        const charge = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
        assert.equal(charge.failure_code, 'wrong_amount');
        assert.match(charge.failure_reason ?? '', /returned to the payer/);
        assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), []);
      }
    });

    test('concurrent receives of one transfer credit it once', async () => {
      const body = bankTransferBody({ amount: 4000 });
      assert.equal((await initializeBankTransfer(ctx.gw, key(), body)).status, 201);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          helper(ctx.gw, key(), `bank-transfers/${String(body.charge_id)}/receive`, { amount: 4000 }),
        ),
      );
      for (const answer of answers) assert.ok([200, 409].includes(answer.status), answer.text);
      const charge = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
      assert.equal(charge.status, 'success');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, charge), ['collection']);
    });

    test('wrong states and wrong inputs are refused with an envelope, and change nothing', async () => {
      const mobile = await pendingCharge();
      assertFieldError(
        await helper(ctx.gw, key(), `bank-transfers/${mobile}/receive`, { amount: 1000 }),
        'charge_id',
        'This payment is by mobile money, not by bank transfer.',
      );
      assertFieldError(
        await helper(ctx.gw, key(), `direct-charges/${mobile}/complete`, {
          status: 'success',
          failure_code: 'declined',
        }),
        'failure_code',
        'The failure code goes with status failed only.',
      );
      assert.equal((await helper(ctx.gw, key(), `direct-charges/${mobile}/complete`, { status: 'maybe' })).status, 400);
      assert.equal((await helper(ctx.gw, key(), `direct-charges/${mobile}/complete`)).status, 400);
      assert.equal((await helper(ctx.gw, key(), `bank-transfers/${mobile}/receive`, { amount: -5 })).status, 400);
      assert.equal((await testChargeRow(ctx.gw, ctx.merchant.id, mobile)).status, 'pending');

      for (const path of [
        'direct-charges/nope/complete',
        'bank-transfers/nope/receive',
        'checkout-sessions/nope/expire',
        'webhooks/nope/retry-now',
      ]) {
        const body = path.includes('complete')
          ? { status: 'success' }
          : path.includes('receive')
            ? { amount: 1 }
            : undefined;
        assertRefused(await helper(ctx.gw, key(), path, body), 404, /not found/);
      }
      assertRefused(
        await helper(ctx.gw, key(), `direct-charges/${'%00'}/complete`, { status: 'success' }),
        404,
        /not found/,
      );

      // Another merchant's charge is not found, and stays pending.
      const other = await ctx.gw.newMerchant('Other Shop');
      assertRefused(
        await helper(ctx.gw, other.test_secret_key, `direct-charges/${mobile}/complete`, { status: 'success' }),
        404,
        /Transaction not found/,
      );
      assert.equal((await testChargeRow(ctx.gw, ctx.merchant.id, mobile)).status, 'pending');
    });

    test('a payout is not a payment a helper ends', async () => {
      await helper(ctx.gw, key(), `direct-charges/${await pendingCharge({ amount: 5000 })}/complete`, {
        status: 'success',
      });
      assert.equal((await helper(ctx.gw, key(), 'settlements/run')).status, 200);
      const body = payoutBody({ amount: 100 });
      const payout = await initializePayout(ctx.gw, key(), body);
      assert.equal(payout.status, 201, payout.text);
      assertFieldError(
        await helper(ctx.gw, key(), `direct-charges/${String(body.charge_id)}/complete`, { status: 'failed' }),
        'charge_id',
        'This is a payout: test helpers end payments only.',
      );
    });

    test('expire ends a pending session as its time running out would; an ended one is refused', async () => {
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: key(), body });
      assert.equal(created.status, 201, created.text);
      const txRef = String(body.tx_ref);
      const expired = await helper(ctx.gw, key(), `checkout-sessions/${txRef}/expire`);
      assert.equal(expired.status, 200, expired.text);
      assert.equal(expired.body.data.status, 'failed');
      assert.ok(
        expired.body.data.logs.some((log: { message: string }) => log.message === 'The payment link expired'),
        expired.text,
      );
      const page = await fetch(created.body.data.checkout_url);
      assert.match(await page.text(), /expired/i);
      assertRefused(await helper(ctx.gw, key(), `checkout-sessions/${txRef}/expire`), 409, /already ended \(failed\)/);
      const other = await ctx.gw.newMerchant('Third Shop');
      assertRefused(await helper(ctx.gw, other.test_secret_key, `checkout-sessions/${txRef}/expire`), 404, /not found/);
    });

    test("settlements/run moves this merchant's test collection to its main balance, and no one else's", async () => {
      const mine = await ctx.gw.newMerchant('Settling Shop');
      const theirs = await ctx.gw.newMerchant('Waiting Shop');
      for (const merchant of [mine, theirs]) {
        const body = chargeBody({ amount: 1000 });
        assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
        const done = await helper(
          ctx.gw,
          merchant.test_secret_key,
          `direct-charges/${String(body.charge_id)}/complete`,
          {
            status: 'success',
          },
        );
        assert.equal(done.status, 200, done.text);
      }
      const run = await helper(ctx.gw, mine.test_secret_key, 'settlements/run');
      assert.equal(run.status, 200, run.text);
      assert.deepEqual(run.body.data, { settled_balances: 1 });
      assert.equal(await accountMinor(ctx.gw, mine.id, 'collection'), 0);
      assert.equal(await accountMinor(ctx.gw, mine.id, 'main'), 97_000);
      assert.equal(await accountMinor(ctx.gw, theirs.id, 'collection'), 97_000, 'the other merchant waits');
      assert.deepEqual((await helper(ctx.gw, mine.test_secret_key, 'settlements/run')).body.data, {
        settled_balances: 0,
      });
    });

    test('retry-now sends a delivery waiting for its next try at once; a delivered one is for redeliver', async () => {
      const receiver = await startReceiver((n) => (n === 1 ? { status: 500 } : { status: 200, body: 'ok' }));
      receivers.push(receiver);
      const merchant: MerchantCredentials = await ctx.gw.newMerchant('Retrying Shop');
      await updateMerchantSettings(rowsOf(ctx.gw), merchant.id, { webhookUrl: receiver.url }, Date.now());
      const body = chargeBody();
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
      const chargeId = String(body.charge_id);
      await helper(ctx.gw, merchant.test_secret_key, `direct-charges/${chargeId}/complete`, { status: 'success' });
      await receiver.waitFor(1);
      const waiting = await eventually('the failed try to be recorded', async () => {
        const [row] = await deliveriesOf(ctx.gw, merchant.id, chargeId);
        return row && row.attempts === 1 && row.locked_until === null ? row : null;
      });
      assert.equal(waiting.status, 'pending');
      assert.ok(waiting.next_attempt_at > Date.now() + 30 * 60_000, 'the next try is an hour away');

      const retried = await helper(ctx.gw, merchant.test_secret_key, `webhooks/${waiting.id}/retry-now`);
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.body.data.status, 'pending');
      await receiver.waitFor(2);
      const delivered = await eventually('the retry to be recorded', async () => {
        const [row] = await deliveriesOf(ctx.gw, merchant.id, chargeId);
        return row?.status === 'delivered' ? row : null;
      });
      assert.equal(delivered.attempts, 2);
      const attempts = await rowsOf(ctx.gw)
        .selectFrom('webhook_attempts')
        .select('status_code')
        .where('delivery_id', '=', waiting.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        attempts.map((attempt) => attempt.status_code),
        [500, 200],
      );
      assertRefused(
        await helper(ctx.gw, merchant.test_secret_key, `webhooks/${waiting.id}/retry-now`),
        409,
        /delivered.*redeliver/,
      );
      assertRefused(await helper(ctx.gw, key(), `webhooks/${waiting.id}/retry-now`), 404, /not found/);
    });

    test('with a live key the helpers are not there (404); without a key, 401', async () => {
      const chargeId = await pendingCharge();
      const routes: Array<[string, unknown]> = [
        [`direct-charges/${chargeId}/complete`, { status: 'success' }],
        [`bank-transfers/${chargeId}/receive`, { amount: 1000 }],
        ['checkout-sessions/any/expire', undefined],
        ['settlements/run', undefined],
        ['webhooks/any/retry-now', undefined],
      ];
      for (const [path, body] of routes) {
        assertRefused(await helper(ctx.gw, ctx.merchant.live_secret_key, path, body), 404, /^Route not found\.$/);
        assert.equal((await helper(ctx.gw, null, path, body)).status, 401);
      }
      assert.equal((await testChargeRow(ctx.gw, ctx.merchant.id, chargeId)).status, 'pending');
    });
  });
}
