import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Charge } from '../../src/core/charge-repository.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Refund } from '../../src/refunds/refund-repository.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AIRTEL_CALLBACK_SECRET, freshAirtelNumber, liveAirtelEnv } from '../helpers/live-airtel.ts';
import { chargeBody, chargeRows, eventually, initializeCharge } from '../helpers/mobile-money.ts';

interface Disbursement {
  payee: { msisdn: string };
  reference: string;
  transaction: { amount: number; id: string; type: string };
}

/**
 * Refunds of live Airtel Money payments through the gateway and the fake Airtel: a whole one goes
 * through Airtel's refund API, part of one as a disbursement to the number that paid, under the
 * refund's own reference, and both are recorded as refunds of the payment with the operator's id.
 */
for (const kind of DATABASE_KINDS) {
  describe(`refunds of live Airtel Money payments on ${kind}`, () => {
    let fake: FakeAirtel;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
      gw = await startTestGateway(kind, liveAirtelEnv(fake));
      fake.callbacksTo(`${gw.url}/callbacks/airtel`);
      merchant = await gw.newMerchant('Live Shop');
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await gw.close();
      await fake.close();
    });

    const db = () => gw.gateway.database.db;
    const paidCharge = (customer: { mobile: string }, amount: number) =>
      livePayment(gw, merchant, customer, amount, async (id) => {
        const [row] = await chargeRows(gw, merchant.id, id);
        return row?.status === 'success' ? row : null;
      });
    const refund = async (chargeId: string, amount?: number) => {
      const created = await call(gw.url, '/refunds', {
        key: merchant.live_secret_key,
        body: { charge_id: chargeId, ...(amount === undefined ? {} : { amount }) },
      });
      assert.equal(created.status, 201, created.text);
      return refundRow(gw, created.body.data.refund_id);
    };
    const ended = (row: Refund) =>
      eventually(`refund ${row.refund_id} to end`, async () => {
        const now = await refundRow(gw, row.refund_id);
        return now.status === 'pending' ? null : now;
      });
    const disbursementsFor = (reference: string) =>
      fake
        .received('POST', '/standard/v1/disbursements/')
        .map((request) => request.body as Disbursement)
        .filter((body) => body.transaction.id === reference);
    const refundEvents = (row: Refund) =>
      db().selectFrom('events').select('payload').where('subject_id', '=', row.id).execute();

    test('part of a payment goes back as a disbursement to the number that paid, under the refund reference, recorded as a refund with its operator ref', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const charge = await paidCharge(customer, 2000);
      const refundApiCalls = fake.received('POST', '/standard/v1/payments/refund').length;

      const pending = await refund(charge.charge_id, 500);
      const done = await ended(pending);
      assert.equal(done.status, 'success', done.failure_reason ?? '');

      const sent = disbursementsFor(pending.id);
      assert.equal(sent.length, 1, 'disbursed once');
      assert.deepEqual(sent[0], {
        payee: { msisdn: customer.local, wallet_type: 'NORMAL' },
        reference: pending.id,
        pin: (sent[0] as unknown as { pin: string }).pin,
        transaction: { amount: 500, id: pending.id, type: 'B2C' },
      });
      const disbursement = fake.transaction(pending.id);
      assert.ok(disbursement);
      assert.equal(done.trans_id, disbursement.airtelMoneyId, "the refund's operator ref is the disbursement's id");
      assert.notEqual(done.trans_id, charge.trans_id);
      assert.equal(fake.received('POST', '/standard/v1/payments/refund').length, refundApiCalls, 'no refund API call');
      assert.equal(fake.transaction(charge.id)?.refunded, false, 'the payment itself is not reversed');

      const read = await call(gw.url, `/refunds/${done.refund_id}`, { key: merchant.live_secret_key });
      assert.equal(read.body.data.charge_id, charge.charge_id, 'a refund of that payment');
      assert.equal(read.body.data.amount, 500);
      assert.equal(read.body.data.trans_id, disbursement.airtelMoneyId);
      const [event] = await refundEvents(done);
      assert.ok(event, 'the merchant hears of it');
      const payload = JSON.parse(event.payload) as Record<string, unknown>;
      assert.equal(payload.event_type, 'api.refund');
      assert.equal(payload.trans_id, disbursement.airtelMoneyId);
      assert.equal(payload.refunded_amount, 500);
      const [after] = await chargeRows(gw, merchant.id, charge.charge_id);
      assert.equal(after?.refunded_minor, 50_000);
      assert.doesNotMatch(after?.provider_state ?? '', /refund/, "the payment's own state is untouched");
    });

    test("the whole payment goes back through Airtel's refund API, not as a disbursement", async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const charge = await paidCharge(customer, 1500);
      const refundApiCalls = fake.received('POST', '/standard/v1/payments/refund').length;
      const done = await ended(await refund(charge.charge_id));
      assert.equal(done.status, 'success', done.failure_reason ?? '');
      assert.equal(done.amount_minor, 150_000);
      assert.equal(fake.received('POST', '/standard/v1/payments/refund').length, refundApiCalls + 1);
      assert.equal(fake.transaction(charge.id)?.refunded, true);
      assert.deepEqual(disbursementsFor(done.id), []);
      assert.equal(done.trans_id, charge.trans_id, "the reversed payment's id");
    });

    test('an ambiguous answer inside a 200 leaves the refund pending; the status enquiry then finds it paid, sent once', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const charge = await paidCharge(customer, 3000);
      // What Airtel does with the next transaction of this number: the refund's disbursement.
      fake.script(customer.local, { answer: 'ambiguous', states: ['TA', 'TIP', 'TS'] });
      const pending = await refund(charge.charge_id, 1000);
      const handed = await eventually('the refund to be handed over', async () => {
        const now = await refundRow(gw, pending.refund_id);
        return now.provider_state && now.provider_state !== 'handing-over' ? now : null;
      });
      assert.equal(handed.status, 'pending', 'ambiguous is not a failure');
      const done = await ended(pending);
      assert.equal(done.status, 'success');
      assert.equal(disbursementsFor(pending.id).length, 1, 'never disbursed again');
      const disbursement = fake.transaction(pending.id);
      assert.ok((disbursement?.enquiries ?? 0) >= 3, 'asked by its status enquiry until TS');
      assert.equal(done.trans_id, disbursement?.airtelMoneyId);
    });

    test("a disbursement Airtel refuses fails the refund and gives the merchant's balance back", async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const charge = await paidCharge(customer, 1000);
      fake.script(customer.local, { states: ['TF'], failureCode: 'DP00900001007' });
      const pending = await refund(charge.charge_id, 300);
      const done = await ended(pending);
      assert.equal(done.status, 'failed');
      assert.match(done.failure_reason ?? '', /DP00900001007/);
      assert.equal(done.trans_id, null);
      const [after] = await chargeRows(gw, merchant.id, charge.charge_id);
      assert.equal(after?.refunded_minor, 0, 'the amount may be refunded again');
    });
  });

  describe(`callbacks about a partial Airtel Money refund on ${kind}`, () => {
    let fake: FakeAirtel;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
      // The settler asks about nothing within a test: only callbacks move payments and refunds on.
      gw = await startTestGateway(kind, {
        ...liveAirtelEnv(fake),
        LIVE_SYNC_FIRST: '1h',
        LIVE_SYNC_MAX: '1h',
        LIVE_REVIEW_AFTER: '2h',
      });
      fake.callbacksTo(`${gw.url}/callbacks/airtel`);
      merchant = await gw.newMerchant('Live Shop');
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await gw.close();
      await fake.close();
    });

    test('a duplicated callback naming the refund reference ends the refund through the enquiry, once', async () => {
      const customer = freshAirtelNumber();
      fake.script(customer.local, { states: ['TS'] });
      const pushed = await livePayment(gw, merchant, customer, 2000, async (id) => {
        const [row] = await chargeRows(gw, merchant.id, id);
        return row && fake.transaction(row.id) ? row : null;
      });
      assert.deepEqual(await fake.sendCallback(pushed.id), [200]);
      const [charge] = await chargeRows(gw, merchant.id, pushed.charge_id);
      assert.equal(charge?.status, 'success', "the payment's callback made the gateway ask");
      fake.script(customer.local, { states: ['TIP'] });
      const created = await call(gw.url, '/refunds', {
        key: merchant.live_secret_key,
        body: { charge_id: charge.charge_id, amount: 700 },
      });
      assert.equal(created.status, 201, created.text);
      const pending = await refundRow(gw, created.body.data.refund_id);
      await eventually('the disbursement to reach Airtel', () => fake.transaction(pending.id));
      assert.equal((await refundRow(gw, pending.refund_id)).status, 'pending');

      fake.approve(pending.id);
      assert.deepEqual(await fake.sendCallback(pending.id, { duplicate: true }), [200, 200]);
      const done = await refundRow(gw, pending.refund_id);
      assert.equal(done.status, 'success', 'the first callback made the gateway ask, and Airtel said TS');
      assert.equal(done.trans_id, fake.transaction(pending.id)?.airtelMoneyId);
      const events = await gw.gateway.database.db
        .selectFrom('events')
        .select('id')
        .where('subject_id', '=', pending.id)
        .execute();
      assert.equal(events.length, 1, 'one api.refund event');
      const disbursements = fake
        .received('POST', '/standard/v1/disbursements/')
        .filter((request) => (request.body as Disbursement).transaction.id === pending.id);
      assert.equal(disbursements.length, 1);
    });
  });
}

/** A live Airtel charge of `amount` from `customer`, once `ready` finds it as the test wants it. */
async function livePayment(
  gw: TestGateway,
  merchant: MerchantCredentials,
  customer: { mobile: string },
  amount: number,
  ready: (chargeId: string) => Promise<Charge | null>,
): Promise<Charge> {
  const body = chargeBody({ mobile: customer.mobile, amount });
  const created = await initializeCharge(gw, merchant.live_secret_key, body);
  assert.equal(created.status, 201, created.text);
  return eventually(`${String(body.charge_id)} to be ready`, () => ready(String(body.charge_id)));
}

async function refundRow(gw: TestGateway, refundId: string): Promise<Refund> {
  return gw.gateway.database.db
    .selectFrom('refunds')
    .selectAll()
    .where('refund_id', '=', refundId)
    .executeTakeFirstOrThrow();
}
