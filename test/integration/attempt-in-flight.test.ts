import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { claimAttemptSlot } from '../../src/core/session-repository.ts';
import { createSession } from '../../src/checkout/checkout-service.ts';
import { checkLedger, holdForRefund } from '../../src/ledger/ledger-service.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { finalizeCharge, insertChargeIfNew, type Charge } from '../../src/core/charge-repository.ts';
import { asChargeRef, ids } from '../../src/shared/ids.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { fakeClock } from '../helpers/clock.ts';

/**
 * The money-safety rule of docs/reliability.md: a checkout session has at most one payment attempt
 * in flight, and no success it cannot count keeps the customer's money.
 */
const SUCCEEDS = { airtel: '0990000000', tnm: '0899817565' };
const FAILS = { airtel: '0990000001', tnm: '0899817566' };
const NUMBERS = [SUCCEEDS.airtel, FAILS.airtel, SUCCEEDS.tnm, FAILS.tnm];
const LOCAL_MASK: Record<string, string> = {
  [SUCCEEDS.airtel]: '0990xxxx00',
  [FAILS.airtel]: '0990xxxx01',
  [SUCCEEDS.tnm]: '0899xxxx65',
  [FAILS.tnm]: '0899xxxx66',
};
const PARALLEL = 20;

for (const kind of DATABASE_KINDS) {
  describe(`one payment attempt in flight per session on ${kind}`, () => {
    // Long enough that a first attempt cannot end (and free the session) while twenty tabs' attempts are still arriving on a busy machine.
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1500ms', WORKER_INTERVAL: '50ms' });
    const db = (): Kysely<DB> => ctx.gw.gateway.database.db;

    async function openSession(gw: TestGateway = ctx.gw, key = ctx.merchant.test_secret_key) {
      const body = currentBody();
      const created = await call(gw.url, '/payment', { key, body });
      assert.equal(created.status, 201, created.text);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(gw.url);
      assert.equal((await client.get(pagePath)).status, 200);
      return { txRef: String(body.tx_ref), pagePath, client, id: pagePath.split('/').pop()! };
    }

    const chargesOf = (sessionId: string) =>
      db().selectFrom('charges').selectAll().where('session_id', '=', sessionId).orderBy('created_at').execute();
    const sessionRow = (sessionId: string) =>
      db().selectFrom('checkout_sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
    const refundsOf = (chargeRef: string) =>
      db().selectFrom('refunds').selectAll().where('charge_ref', '=', asChargeRef(chargeRef)).execute();

    /** Every tab a customer could have open on the page, each with its own cookie and form token. */
    async function tabs(pagePath: string, count: number): Promise<CheckoutClient[]> {
      return Promise.all(
        Array.from({ length: count }, async () => {
          const tab = new CheckoutClient(ctx.gw.url);
          assert.equal((await tab.get(pagePath)).status, 200);
          return tab;
        }),
      );
    }

    test(`${PARALLEL} parallel mobile money attempts with different numbers: one reaches a wallet, the rest are told which number it waits on`, async () => {
      const session = await openSession();
      const open = await tabs(session.pagePath, PARALLEL);
      const answers = await Promise.all(
        open.map((tab, i) =>
          tab.post(`${session.pagePath}/pay/mobile-money`, { mobile: NUMBERS[i % NUMBERS.length]!, operator: '' }),
        ),
      );
      const charges = await chargesOf(session.id);
      assert.equal(charges.length, 1, `one attempt was recorded, not ${charges.length}`);
      const [charge] = charges as [Charge];
      const heldBy = NUMBERS.find((number) => charge.mobile === `+265${number.slice(1, 4)}xxxx${number.slice(-2)}`)!;
      for (const [i, answer] of answers.entries()) {
        if (NUMBERS[i % NUMBERS.length] === heldBy) {
          assert.equal(
            answer.status,
            303,
            `the tab with the same number is sent to the attempt: ${answer.text.slice(0, 200)}`,
          );
          assert.equal(new URL(answer.location!).pathname, `${session.pagePath}/attempts/${charge.charge_id}`);
        } else {
          assert.equal(answer.status, 422);
          assert.match(answer.text, new RegExp(`A payment is already waiting for approval on ${LOCAL_MASK[heldBy]}`));
        }
      }
      await eventually('the attempt to end', async () => (await chargesOf(session.id))[0]!.status !== 'pending');
      const ended = await sessionRow(session.id);
      assert.equal(ended.attempts, 1);
      assert.equal(ended.pending_charge_id, null, 'the session is free for the next attempt once the first ended');
      if (heldBy === SUCCEEDS.airtel || heldBy === SUCCEEDS.tnm) assert.equal(ended.status, 'success');
      else assert.equal(ended.failed_attempts, 1);
      assert.equal(
        (
          await db()
            .selectFrom('refunds')
            .select('id')
            .where('merchant_id', '=', ctx.merchant.id)
            .where('charge_ref', '=', charge.id)
            .execute()
        ).length,
        0,
      );
    });

    test(`${PARALLEL} parallel attempts with the same number (double clicks, reloads) are one attempt`, async () => {
      const session = await openSession();
      const open = await tabs(session.pagePath, PARALLEL);
      const answers = await Promise.all(
        open.map((tab) =>
          tab.post(`${session.pagePath}/pay/mobile-money`, { mobile: SUCCEEDS.airtel, operator: 'airtel' }),
        ),
      );
      const charges = await chargesOf(session.id);
      assert.equal(charges.length, 1);
      assert.deepEqual(
        new Set(answers.map((answer) => `${answer.status} ${answer.location}`)),
        new Set([`303 ${ctx.gw.url}${session.pagePath}/attempts/${charges[0]!.charge_id}`]),
      );
      await eventually('the session to be paid', async () => (await sessionRow(session.id)).status === 'success');
      const paid = await sessionRow(session.id);
      assert.equal(paid.paid_charge_id, charges[0]!.id);
      assert.equal(paid.attempts, 1);
    });

    test(`${PARALLEL} parallel card attempts with different cards: one card at a time can reach the issuer, and it pays once`, async () => {
      const session = await openSession();
      const open = await tabs(session.pagePath, PARALLEL);
      const cards = ['4242424242424242', '5555555555554444'];
      const answers = await Promise.all(
        open.map((tab, i) =>
          tab.post(`${session.pagePath}/pay/card`, {
            card_number: cards[i % 2]!,
            expiry: `12/${30 + (i % 9)}`,
            cvv: '123',
          }),
        ),
      );
      assert.deepEqual(
        answers
          .filter((answer) => answer.status !== 303)
          .map(
            (answer) =>
              `${answer.status} ${/role="alert"[^]*?<p>(.*?)<\/p>/.exec(answer.text)?.[1] ?? answer.text.slice(0, 300)}`,
          ),
        [],
        'each card is taken (replacing the one before it, which had no code yet)',
      );
      const charges = await chargesOf(session.id);
      const inFlight = charges.filter((charge) => charge.status === 'pending');
      assert.equal(inFlight.length, 1, 'one card attempt is left waiting for its code');
      assert.ok(
        charges
          .filter((charge) => charge.status === 'failed')
          .every((charge) => /replaced by another payment/.test(charge.failure_reason ?? '')),
      );
      assert.equal((await sessionRow(session.id)).pending_charge_id, inFlight[0]!.id);
      // Every tab sends its code: only the attempt in flight reaches the issuer.
      await Promise.all(
        open.map((tab, i) => tab.post(`${new URL(answers[i]!.location!).pathname}/otp`, { otp: '1234' })),
      );
      const after = await chargesOf(session.id);
      assert.deepEqual(
        after.filter((charge) => charge.status === 'success').map((charge) => charge.id),
        [inFlight[0]!.id],
      );
      assert.equal((await sessionRow(session.id)).status, 'success');
    });

    test('cancel while an attempt waits for approval: the session fails, and the approval that comes later is refunded in full', async () => {
      const session = await openSession();
      const merchantBalances = () =>
        db()
          .selectFrom('ledger_accounts')
          .select(['kind', 'balance_minor'])
          .where('owner', '=', ctx.merchant.id)
          .where('mode', '=', 'test')
          .where('kind', 'in', ['collection', 'main', 'refunds_due'])
          .orderBy('kind')
          .execute();
      const before = await merchantBalances();
      const posted = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: SUCCEEDS.airtel,
        operator: 'airtel',
      });
      assert.equal(posted.status, 303);
      const cancelled = await session.client.post(`${session.pagePath}/cancel`, {});
      assert.equal(new URL(cancelled.location!).searchParams.get('status'), 'failed');
      const [charge] = await chargesOf(session.id);
      await eventually(
        'the late approval to be refunded',
        async () => (await refundsOf(charge!.id))[0]?.status === 'success',
      );
      const [refund] = await refundsOf(charge!.id);
      assert.equal(refund!.amount_minor, charge!.amount_minor);
      assert.equal(refund!.source, 'uncounted');
      const ended = await sessionRow(session.id);
      assert.equal(ended.status, 'failed');
      assert.equal(ended.paid_charge_id, null);
      const verified = await call(ctx.gw.url, `/mobile-money/payments/${charge!.charge_id}/verify`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(verified.body.data.status, 'success', 'the operator did take the money');
      assert.equal(verified.body.data.transaction_charges.amount, '0.00', 'no fee on money given back');
      const logs = verified.body.data.logs.map((log: { message: string }) => log.message);
      assert.ok(
        logs.some((message: string) =>
          /Not counted \(the payment had already ended\): refund rf_\w+ of MWK 1,000\.00 started/.test(message),
        ),
        logs.join(' | '),
      );
      assert.ok(
        logs.some((message: string) => /Refund rf_\w+ completed/.test(message)),
        logs.join(' | '),
      );
      const sessionLogs = (
        await call(ctx.gw.url, `/verify-payment/${session.txRef}`, { key: ctx.merchant.test_secret_key })
      ).body.data.logs.map((log: { message: string }) => log.message);
      assert.ok(
        sessionLogs.some((message: string) =>
          /succeeded after the payment had already ended; it was not counted and refund rf_\w+ gives it back/.test(
            message,
          ),
        ),
        sessionLogs.join(' | '),
      );
      // The merchant never had the money: its balances are untouched, and what was held went back out.
      const after = (await merchantBalances()).filter(
        (account) => account.kind !== 'refunds_due' || account.balance_minor !== 0,
      );
      assert.deepEqual(
        after,
        before.filter((account) => account.kind !== 'refunds_due'),
        "the merchant's balances are as they were and nothing stays held",
      );
      const held = await db()
        .selectFrom('ledger_transactions')
        .select('kind')
        .where('reference', 'in', [charge!.id, refund!.id])
        .orderBy('kind')
        .execute();
      assert.deepEqual(
        held.map((row) => row.kind),
        ['refund_complete', 'refund_hold'],
      );
      const events = await db().selectFrom('events').select('payload').where('subject_id', '=', session.id).execute();
      assert.equal(events.length, 0, 'no payment webhook for money that is given back');
    });

    test('an attempt that completes before the cancel is confirmed is counted: the cancel finds the session paid', async () => {
      const session = await openSession();
      await session.client.post(`${session.pagePath}/pay/mobile-money`, { mobile: SUCCEEDS.tnm, operator: 'tnm' });
      await eventually('the approval', async () => (await sessionRow(session.id)).status === 'success');
      const cancelled = await session.client.post(`${session.pagePath}/cancel`, {});
      assert.equal(cancelled.status, 303);
      assert.equal(
        new URL(cancelled.location!).searchParams.get('status'),
        'success',
        'the customer is sent on as paid',
      );
      const [charge] = await chargesOf(session.id);
      assert.equal((await refundsOf(charge!.id)).length, 0);
    });

    test('the settler ends a charge that was recorded but whose start was never answered (a crash in between), freeing the session', async () => {
      const session = await openSession();
      const row = await sessionRow(session.id);
      const now = Date.now();
      const charge: Charge = {
        id: ids.chargeRef(),
        merchant_id: row.merchant_id,
        mode: row.mode,
        charge_id: ids.attemptChargeId(),
        ref_id: ids.reference(),
        session_id: row.id,
        kind: 'payment',
        channel: 'mobile_money',
        operator: 'airtel',
        mobile: '+265990xxxx00',
        card_brand: null,
        card_number: null,
        card_expiry: null,
        status: 'pending',
        next_action: 'approve',
        failure_reason: null,
        failure_code: null,
        provider_state: null,
        check_at: now - 1,
        amount_minor: row.amount_minor,
        currency: row.currency,
        fee_minor: 0,
        first_name: row.first_name,
        last_name: row.last_name,
        email: row.email,
        trans_id: null,
        attempts: 1,
        created_at: now,
        completed_at: null,
        updated_at: now,
        request_hash: null,
        type: 'API Payment (Checkout)',
        refunded_minor: 0,
        review_reason: null,
        callback_asked_at: null,
      };
      // What the first transaction of an attempt writes, without the provider ever being asked.
      assert.ok(await claimAttemptSlot(db(), row.id, charge.id, now));
      assert.ok(await insertChargeIfNew(db(), charge));
      await eventually('the settler to end it', async () => (await chargesOf(session.id))[0]!.status === 'failed');
      assert.equal((await sessionRow(session.id)).pending_charge_id, null);
      const next = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: SUCCEEDS.airtel,
        operator: 'airtel',
      });
      assert.equal(next.status, 303, 'the customer can try again');
    });
  });

  describe(`attempts in flight when a session expires on ${kind}`, () => {
    // The approval comes 5 s after the attempt, the session ends 3 s after its creation: the room
    // between them lets a loaded machine take its time over the attempt without changing the order.
    const ctx = useTestGateway(kind, { CHECKOUT_TTL: '3s', SANDBOX_MOBILE_DELAY: '5s', WORKER_INTERVAL: '50ms' });

    test('expiry while an attempt waits for approval: the approval that comes later is refunded, the session stays failed', async () => {
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(ctx.gw.url);
      await client.get(pagePath);
      assert.equal(
        (await client.post(`${pagePath}/pay/mobile-money`, { mobile: SUCCEEDS.airtel, operator: 'airtel' })).status,
        303,
      );
      const db = ctx.gw.gateway.database.db;
      const charge = await db
        .selectFrom('charges')
        .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
        .selectAll('charges')
        .where('checkout_sessions.tx_ref', '=', String(body.tx_ref))
        .executeTakeFirstOrThrow();
      assert.equal(charge.status, 'pending', 'the attempt waits for its approval');
      const verifiedStatus = async () =>
        (await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, { key: ctx.merchant.test_secret_key })).body
          .data.status;
      await eventually('the session to expire', async () => (await verifiedStatus()) === 'failed');
      const pendingAtExpiry = await db
        .selectFrom('charges')
        .select('status')
        .where('id', '=', charge.id)
        .executeTakeFirst();
      assert.equal(pendingAtExpiry?.status, 'pending', 'the expiry is confirmed before the approval');
      await eventually(
        'the refund',
        async () =>
          (await db.selectFrom('refunds').select('status').where('charge_ref', '=', charge.id).executeTakeFirst())
            ?.status === 'success',
      );
      assert.equal(await verifiedStatus(), 'failed');
    });
  });

  test(`the ledger check finds a success its session could not count that was not held for refund, on ${kind} (throwaway database)`, async () => {
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
      const charge: Charge = {
        id: ids.chargeRef(),
        merchant_id: merchant.id,
        mode: 'test',
        charge_id: ids.attemptChargeId(),
        ref_id: ids.reference(),
        session_id: session.id,
        kind: 'payment',
        channel: 'mobile_money',
        operator: 'airtel',
        mobile: '+265990xxxx00',
        card_brand: null,
        card_number: null,
        card_expiry: null,
        status: 'pending',
        next_action: 'approve',
        failure_reason: null,
        failure_code: null,
        provider_state: null,
        check_at: null,
        amount_minor: 1000_00,
        currency: 'MWK',
        fee_minor: 0,
        first_name: 'Ada',
        last_name: null,
        email: null,
        trans_id: null,
        attempts: 1,
        created_at: now,
        completed_at: null,
        updated_at: now,
        request_hash: null,
        type: 'API Payment (Checkout)',
        refunded_minor: 0,
        review_reason: null,
        callback_asked_at: null,
      };
      assert.ok(await insertChargeIfNew(opened.db, charge));
      await finalizeCharge(opened.db, charge.id, { status: 'success', transId: null }, 0, now);
      assert.deepEqual(await checkLedger(opened.db), [
        `uncounted successful charge ${charge.id} was held for refund 0 times, not 1`,
      ]);
      await opened.db.transaction().execute((trx) =>
        holdForRefund(
          trx,
          {
            merchantId: merchant.id,
            mode: 'test',
            currency: 'MWK',
            amountMinor: 1000_00,
            feeMinor: 0,
            reference: charge.id,
          },
          now,
        ),
      );
      assert.deepEqual(await checkLedger(opened.db), []);
    } finally {
      await opened.close();
      await throwaway.drop();
    }
  });
}
