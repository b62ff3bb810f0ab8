import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { settleCollections } from '../../src/ledger/ledger-service.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AIRTEL_CALLBACK_SECRET, freshAirtelNumber, liveAirtelEnv } from '../helpers/live-airtel.ts';
import {
  chargeBody,
  chargeRows,
  eventCount,
  eventually,
  initializeCharge,
  initializePayout,
  payoutBody,
  verify,
} from '../helpers/mobile-money.ts';

for (const kind of DATABASE_KINDS) {
  describe(`live Airtel Money through the gateway on ${kind}`, () => {
    let fake: FakeAirtel;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
      gw = await startTestGateway(kind, liveAirtelEnv(fake));
      fake.callbacksTo(`${gw.url}/callbacks/airtel`);
      merchant = await gw.newMerchant('Live Shop');
    });
    afterEach(async () => {
      fake.outage(false);
      fake.answerAfter(0);
      await assertLedgerBalanced(gw);
    });
    after(async () => {
      await gw.close();
      await fake.close();
    });

    const liveCharge = async (customer: { mobile: string }, overrides: Record<string, unknown> = {}) => {
      const body = chargeBody({ mobile: customer.mobile, ...overrides });
      const created = await initializeCharge(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      return String(body.charge_id);
    };
    const row = async (chargeId: string): Promise<Charge> => {
      const rows = await chargeRows(gw, merchant.id, chargeId);
      assert.equal(rows.length, 1);
      return rows[0]!;
    };
    const ended = (chargeId: string, timeoutMs = 10_000) =>
      eventually(
        `${chargeId} to end`,
        async () => ((await row(chargeId)).status === 'pending' ? null : row(chargeId)),
        timeoutMs,
      );
    const collectionsOf = (id: string) =>
      fake
        .received('POST', '/merchant/v1/payments/')
        .filter((request) => (request.body as { transaction: { id: string } }).transaction.id === id);

    test('a live charge is pushed to Airtel once, and the settler ends it when Airtel says TS: verify, event and ledger', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TIP', 'TIP', 'TS'] });
      const chargeId = await liveCharge(customer);
      const charge = await ended(chargeId);
      assert.equal(charge.status, 'success');
      const transaction = fake.transaction(charge.id);
      assert.ok(transaction, 'Airtel knows the charge by our reference');
      assert.equal(charge.trans_id, transaction.airtelMoneyId);
      assert.equal(collectionsOf(charge.id).length, 1, 'one USSD push');
      assert.equal(
        (collectionsOf(charge.id)[0]!.body as { subscriber: { msisdn: string } }).subscriber.msisdn,
        customer.local,
      );
      const verified = await verify(gw, merchant.live_secret_key, chargeId);
      assert.equal(verified.body.data.status, 'success');
      assert.equal(verified.body.data.mode, 'live');
      assert.equal(await eventCount(gw, charge), 1, 'one api.charge.payment event for the merchant webhook');
    });

    test('an Airtel failure code fails the charge with the reason the customer and merchant read', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TF'], failureCode: 'DP00800001007' });
      const charge = await ended(await liveCharge(customer));
      assert.equal(charge.status, 'failed');
      assert.equal(charge.failure_code, 'insufficient_funds');
      assert.match(charge.failure_reason ?? '', /DP00800001007/);
    });

    test('an error inside a 200 at the push is refused at once, with nothing recorded', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, {
        answer: {
          httpStatus: 400,
          body: { status: { code: '400', message: 'Invalid MSISDN', result_code: 'ROUTER114', success: false } },
        },
      });
      const body = chargeBody({ mobile: customer.mobile });
      const refused = await initializeCharge(gw, merchant.live_secret_key, body);
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.body.message.mobile, 'the refusal names the mobile field');
      assert.deepEqual(await chargeRows(gw, merchant.id, String(body.charge_id)), [], 'no record of a refused charge');
    });

    test('Airtel took the money but its answer timed out: the charge stays pending, then sync finds TS, counted once', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { answer: 'hang', states: ['TS'] });
      const chargeId = await liveCharge(customer);
      const pending = await row(chargeId);
      assert.equal(pending.status, 'pending', 'an unknown answer is not a failure');
      const charge = await ended(chargeId);
      assert.equal(charge.status, 'success');
      assert.equal(collectionsOf(charge.id).length, 1, 'never pushed twice');
      assert.equal(await eventCount(gw, charge), 1);
    });

    test("Airtel's token expires between the push and the enquiries: the gateway fetches a new one and the charge settles", async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TIP', 'TS'] });
      const chargeId = await liveCharge(customer);
      const tokensBefore = fake.received('POST', '/auth/oauth2/token').length;
      fake.revokeTokens();
      const charge = await ended(chargeId);
      assert.equal(charge.status, 'success');
      assert.ok(fake.received('POST', '/auth/oauth2/token').length > tokensBefore, 'a new token was fetched');
      assert.equal(collectionsOf(charge.id).length, 1);
    });

    test('TA (ambiguous) then TS: pending until Airtel is sure', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TA', 'TA', 'TS'] });
      const charge = await ended(await liveCharge(customer));
      assert.equal(charge.status, 'success');
      assert.ok((fake.transaction(charge.id)?.enquiries ?? 0) >= 3);
    });

    test('a callback that arrives before the push is answered ends the charge through sync; the late answer changes nothing', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { answer: 'hang', states: ['TS'] });
      const body = chargeBody({ mobile: customer.mobile });
      const creating = initializeCharge(gw, merchant.live_secret_key, body);
      const recorded = await eventually('the charge to be recorded and pushed', async () => {
        const [found] = await chargeRows(gw, merchant.id, String(body.charge_id));
        return found && fake.transaction(found.id) ? found : null;
      });
      assert.deepEqual(await fake.sendCallback(recorded.id), [200]);
      assert.equal(
        (await row(String(body.charge_id))).status,
        'success',
        'settled by the callback, before the push was answered',
      );
      const created = await creating;
      assert.equal(created.status, 201);
      assert.equal(created.body.data.status, 'success');
      assert.equal(await eventCount(gw, recorded), 1);
    });

    test('a duplicated callback is answered twice and counted once', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { approveAfterMs: 300 });
      const chargeId = await liveCharge(customer);
      const charge = await row(chargeId);
      await sleep(400);
      assert.deepEqual(await fake.sendCallback(charge.id, { duplicate: true }), [200, 200]);
      assert.equal((await row(chargeId)).status, 'success');
      assert.equal(await eventCount(gw, charge), 1);
    });

    test('a callback with a bad hash is refused (401) and the charge is unchanged', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { approveAfterMs: 60_000 });
      const chargeId = await liveCharge(customer);
      const charge = await row(chargeId);
      assert.deepEqual(await fake.sendCallback(charge.id, { secret: 'not-the-key' }), [401]);
      assert.deepEqual(await fake.sendCallback(charge.id, { secret: null }), [401], 'no hash at all');
      assert.equal((await row(chargeId)).status, 'pending');
      const refused = await call(gw.url, '/callbacks/airtel', {
        body: { transaction: { id: charge.id, status_code: 'TS', airtel_money_id: 'forged' }, hash: 'AAAA' },
      });
      assert.deepEqual(refused.body, {
        status: 'failed',
        message: 'The callback could not be authenticated.',
        data: null,
      });
      assert.equal((await row(chargeId)).status, 'pending');
      const unknownConnector = await call(gw.url, '/callbacks/nobody', { body: {} });
      assert.equal(unknownConnector.status, 404);
    });

    test('Airtel down for a while: the charge stays pending, is flagged for review (logs, CLI, metrics), then settles when Airtel is back', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      fake.outage(false);
      const body = chargeBody({ mobile: customer.mobile });
      // The push gets through; every enquiry after it meets the outage.
      fake.answerAfter(0);
      const created = await initializeCharge(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      fake.outage(true);
      const chargeId = String(body.charge_id);
      const flagged = await eventually('the charge to be flagged for review', async () =>
        (await row(chargeId)).review_reason ? row(chargeId) : null,
      );
      assert.equal(flagged.status, 'pending', 'an outage never fails a charge');
      assert.match(flagged.review_reason ?? '', /no final answer from airtel/);
      const verified = await verify(gw, merchant.live_secret_key, chargeId);
      assert.ok(
        (verified.body.data.logs as Array<{ message: string }>).some((entry) =>
          entry.message.startsWith('Flagged for review'),
        ),
        'verify shows the flag in its logs',
      );
      const review = await lipira(['charges', 'review', '--json'], { DATABASE_URL: gw.database.url });
      assert.equal(review.code, 0, review.stderr);
      const listed = (JSON.parse(review.stdout) as Array<{ kind: string; reference: string }>).find(
        (entry) => entry.reference === chargeId,
      );
      assert.equal(listed?.kind, 'payment');
      const metrics = await call(gw.url, '/metrics');
      assert.match(metrics.text, /lipira_live_in_review\{kind="payment"\} [1-9]/);
      fake.outage(false);
      const charge = await ended(chargeId);
      assert.equal(charge.status, 'success');
      assert.equal(collectionsOf(charge.id).length, 1);
      const cleared = await lipira(['charges', 'review', '--json'], { DATABASE_URL: gw.database.url });
      assert.equal(
        (JSON.parse(cleared.stdout) as Array<{ reference: string }>).some((entry) => entry.reference === chargeId),
        false,
        'off the review list once final',
      );
    });

    test('a payout whose answer is lost is asked about, never sent again, and paid once; the PIN reached Airtel encrypted', async () => {
      const payer = freshAirtelNumber();
      fake.script(payer.local, { states: ['TS'] });
      const collected = await ended(await liveCharge(payer, { amount: 5000 }));
      assert.equal(collected.status, 'success');
      await settleCollections(gw.gateway.database.db, Date.now());
      const payee = freshAirtelNumber();
      fake.script(payee.local, { answer: 'hang', states: ['TS'] });
      const body = payoutBody({ mobile: payee.mobile, amount: 1000 });
      const created = await initializePayout(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.status, 'pending', 'the answer was lost: pending, not failed');
      const payout = await ended(String(body.charge_id));
      assert.equal(payout.status, 'success');
      const disbursements = fake
        .received('POST', '/standard/v1/disbursements/')
        .filter((request) => (request.body as { transaction: { id: string } }).transaction.id === payout.id);
      assert.equal(disbursements.length, 1, 'sent once');
      const pin = (disbursements[0]!.body as { pin: string }).pin;
      assert.notEqual(pin, fake.disbursementPin, 'never the PIN in clear');
      assert.ok(Buffer.from(pin, 'base64').length >= 256, 'an RSA-2048 block');
    });

    test('part of a live Airtel payment, then the rest: each a disbursement to the payer (the refund API reverses whole payments only)', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const chargeId = await liveCharge(customer, { amount: 2000 });
      const charge = await ended(chargeId);
      const refundApiCalls = fake.received('POST', '/standard/v1/payments/refund').length;
      for (const body of [{ charge_id: chargeId, amount: 500 }, { charge_id: chargeId }]) {
        const created = await call(gw.url, '/refunds', { key: merchant.live_secret_key, body });
        assert.equal(created.status, 201, created.text);
        const done = await eventually('the refund to complete', async () => {
          const read = await call(gw.url, `/refunds/${created.body.data.refund_id}`, {
            key: merchant.live_secret_key,
          });
          return read.body.data.status === 'pending' ? null : read;
        });
        assert.equal(done.body.data.status, 'success', done.text);
        assert.ok(done.body.data.trans_id, "the disbursement's id");
      }
      const disbursed = fake
        .received('POST', '/standard/v1/disbursements/')
        .map((request) => request.body as { payee: { msisdn: string }; transaction: { amount: number } })
        .filter((body) => body.payee.msisdn === customer.local)
        .map((body) => body.transaction.amount);
      assert.deepEqual(disbursed, [500, 1500]);
      assert.equal(fake.received('POST', '/standard/v1/payments/refund').length, refundApiCalls);
      assert.equal(fake.transaction(charge.id)?.refunded, false);
      const [paid] = await chargeRows(gw, merchant.id, chargeId);
      assert.equal(paid?.refunded_minor, 200_000);
    });
  });
}

describe('live Airtel Money in the logs', () => {
  test('no client secret, PIN, callback key or access token in any log line, at debug level, through a charge, a payout, an outage and a forged callback', async () => {
    const fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const gw = await startTestGateway('sqlite', liveAirtelEnv(fake), pino({ level: 'debug' }, sink));
    fake.callbacksTo(`${gw.url}/callbacks/airtel`);
    try {
      const merchant = await gw.newMerchant('Live Shop');
      const payer = freshAirtelNumber();
      fake.script(payer.local, { states: ['TS'] });
      const body = chargeBody({ mobile: payer.mobile, amount: 5000 });
      assert.equal((await initializeCharge(gw, merchant.live_secret_key, body)).status, 201);
      const [charge] = await eventually('the charge to end', async () => {
        const rows = await chargeRows(gw, merchant.id, String(body.charge_id));
        return rows[0]?.status === 'success' ? rows : null;
      });
      await settleCollections(gw.gateway.database.db, Date.now());
      const payee = freshAirtelNumber();
      fake.script(payee.local, { states: ['TS'] });
      assert.equal(
        (await initializePayout(gw, merchant.live_secret_key, payoutBody({ mobile: payee.mobile, amount: 100 })))
          .status,
        201,
      );
      await fake.sendCallback(charge!.id, { secret: 'forged-key' });
      fake.outage(true);
      const waiting = freshAirtelNumber();
      await initializeCharge(gw, merchant.live_secret_key, chargeBody({ mobile: waiting.mobile }));
      await sleep(500);
      fake.outage(false);
      assert.ok(lines.length > 0, 'something was logged');
      const logged = lines.join('');
      const tokens = fake.received('POST', '/auth/oauth2/token').length;
      assert.ok(tokens > 0);
      for (const secret of [
        fake.clientSecret,
        AIRTEL_CALLBACK_SECRET,
        ...Array.from({ length: tokens }, (_, i) => `fake-airtel-token-${i + 1}`),
      ]) {
        assert.ok(!logged.includes(secret), `${secret} is in the logs`);
      }
      assert.doesNotMatch(logged, new RegExp(`\\b${fake.disbursementPin}\\b`), 'no PIN in the logs');
    } finally {
      await gw.close();
      await fake.close();
    }
  });
});
