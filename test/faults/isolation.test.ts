import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { verifyWebhook } from '../../lib/verify-webhook.js';
import { completeCheckoutCharge } from '../../src/checkout/checkout-payments.ts';
import { loadConfig } from '../../src/config.ts';
import { checkLedger, settleCollections } from '../../src/ledger/ledger-service.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { claimAttemptSlot, countAttempt } from '../../src/core/session-repository.ts';
import { insertChargeIfNew, type Charge } from '../../src/core/charge-repository.ts';
import { completeDirectCharge } from '../../src/payments/direct-charges.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { ids, type Mode } from '../../src/shared/ids.ts';
import { cardBody, chargeCard, openThreeDs } from '../helpers/cards.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { recordDirectPayment } from '../helpers/direct-charges.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type ApiResponse, type TestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';
import { bankPayoutBody, initializeBankPayout } from '../helpers/bank-payouts.ts';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import {
  AIRTEL_REF,
  chargeBody,
  eventually,
  initializeCharge,
  initializePayout,
  payoutBody,
  TEST_NUMBERS,
  verify,
} from '../helpers/mobile-money.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { reportScenario } from './report.ts';

/**
 * Issue 8: no test key can read, change or be notified about anything of live mode, and no
 * merchant about another's. Two merchants × two modes hold the same kinds of records, several
 * under the very same references; fast-check then draws (actor key, target record, operation)
 * and every answer must be the actor's own record, or 404, and never show a field of another's.
 * Live records that must have succeeded are seeded through the payment services (live providers
 * move no money in this build); everything else goes through the API.
 */
const RUNS = Number(process.env.ISOLATION_RUNS ?? 3_000);
const SEED = Number(process.env.ISOLATION_SEED ?? Date.now() % 2 ** 31);

/** One merchant in one mode: what its key may see, and nothing else. */
interface Scope {
  label: string;
  merchant: MerchantCredentials;
  mode: Mode;
  key: string;
  /** Written into every record of the scope (names, titles), so that any leak of it shows. */
  marker: string;
  amount: number;
  sessions: Map<string, { status: string }>;
  /** By charge_id; payouts show no customer names (docs/integrate/api-reference.md#charge-records); `bank`: made through the banks list; `transfer`: a bank transfer charge; `card`: a direct card charge. */
  charges: Map<string, { status: string; payout?: boolean; bank?: boolean; transfer?: boolean; card?: boolean }>;
  deliveries: Map<string, { txRef: string | null; chargeId: string | null }>;
  /** By refund_id: the refund of part of the scope's own paid charge (`paidOnly`), and how it stands. */
  refunds: Map<string, { status: string; chargeId: string }>;
  /** Values only this scope's records hold (references, tokens, ids): none may appear in another scope's answers. */
  private: Set<string>;
  /** Where this scope's webhooks go: a receiver of its own. */
  receiver: Receiver;
}

/** References every scope uses for its own record: each key must get its own back. */
const SHARED = {
  pendingOrder: 'iso-order-1',
  paidOrder: 'iso-order-2',
  popupOrder: 'iso-popup-1',
  formOrder: 'iso-form-1',
  charge: 'iso-charge-1',
  payout: 'iso-payout-1',
  bankPayout: 'iso-bank-payout-1',
  transfer: 'iso-transfer-1',
  card: 'iso-card-1',
} as const;

type Target = { scope: Scope; kind: 'session' | 'charge' | 'delivery' | 'refund'; ref: string };

/** A paid charge only this scope has: what its refund gives back part of, and what other keys try to refund. */
const paidOnly = (scope: Scope) => `iso-paid-only-${scope.label}`;

for (const kind of DATABASE_KINDS) {
  test(`isolation between merchants and modes on ${kind}`, { timeout: 5 * 60_000 }, async () => {
    const started = performance.now();
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-isolation-outbox-'));
    const gw = await startTestGateway(kind, {
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
      RATE_LIMIT_ADDRESS_BURST: '1000000',
      // Pending charges stay pending; webhooks go out at once, and a refused one is not retried during the test.
      SANDBOX_MOBILE_DELAY: '1h',
      WORKER_INTERVAL: '50ms',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      OUTBOX_DIR: outbox,
      // Live sessions may be made; every live attempt is still refused (see LIVE_SESSIONS_ONLY).
      ...LIVE_SESSIONS_ONLY,
    });
    const receivers: Receiver[] = [];
    const figures = {
      requests: 0,
      ownAnswers: 0,
      notFound: 0,
      refusedChanges: 0,
      crossMerchant: 0,
      crossMode: 0,
      leaks: 0,
      webhooksReceived: 0,
    };
    try {
      const scopes = await seedScopes(gw, receivers);
      const targets: Target[] = scopes.flatMap((scope) => [
        ...[...scope.sessions.keys()].map((ref) => ({ scope, kind: 'session' as const, ref })),
        ...[...scope.charges.keys()].map((ref) => ({ scope, kind: 'charge' as const, ref })),
        ...[...scope.deliveries.keys()].map((ref) => ({ scope, kind: 'delivery' as const, ref })),
        ...[...scope.refunds.keys()].map((ref) => ({ scope, kind: 'refund' as const, ref })),
      ]);

      // Indices, not the records themselves, so that a counterexample reads short; `describe` says what they name.
      const describe = (actorIndex: number, targetIndex: number) =>
        `${scopes[actorIndex]!.label} key on ${targets[targetIndex]!.kind} ${targets[targetIndex]!.ref} of ${targets[targetIndex]!.scope.label}`;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(scopes.length - 1),
          fc.nat(targets.length - 1),
          fc.nat(),
          async (actorIndex, targetIndex, choice) => {
            const actor = scopes[actorIndex]!;
            const target = targets[targetIndex]!;
            if (actor.merchant.id !== target.scope.merchant.id) figures.crossMerchant++;
            else if (actor.mode !== target.scope.mode) figures.crossMode++;
            const answer = await operate(gw, actor, target, choice, figures).catch((error: unknown) => {
              throw new Error(
                `${describe(actorIndex, targetIndex)} (choice ${choice}): ${error instanceof Error ? error.message : String(error)}`,
              );
            });
            figures.requests++;
            const leaked = scopes.filter(
              (other) =>
                other !== actor && [other.marker, ...other.private].some((value) => answer.text.includes(value)),
            );
            if (leaked.length > 0) figures.leaks++;
            assert.deepEqual(
              leaked.map((other) => other.label),
              [],
              `${describe(actorIndex, targetIndex)} saw a field of another scope: ${answer.text.slice(0, 400)}`,
            );
          },
        ),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );

      // Notified: each receiver got exactly its scope's deliveries, signed with its merchant's secret; live ones none at all.
      const rows = await gw.gateway.database.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'merchant_id', 'mode', 'attempts', 'last_error', 'url'])
        .execute();
      await eventually('every test-mode webhook delivered', async () => {
        const pending = await gw.gateway.database.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('mode', '=', 'test')
          .where('status', '!=', 'delivered')
          .execute();
        return pending.length === 0;
      });
      for (const scope of scopes) {
        const own = rows.filter((row) => row.merchant_id === scope.merchant.id && row.mode === scope.mode);
        assert.ok(
          own.every((row) => row.url === scope.receiver.url),
          `${scope.label}: every delivery is addressed to its own webhook configuration`,
        );
        const received = new Set<string>();
        for (const request of scope.receiver.received) {
          const payload = verifyWebhook(request.body, request.headers, scope.merchant.webhook_secret);
          received.add(String(request.headers['webhook-id']));
          assert.ok(
            own.some((row) => row.id === request.headers['webhook-id']),
            `${scope.label} received another scope's webhook ${String(request.headers['webhook-id'])}`,
          );
          assert.equal(payload.mode, scope.mode);
          assert.ok(
            !scopes.some((other) => other !== scope && request.body.includes(other.marker)),
            `${scope.label} received another scope's data`,
          );
        }
        figures.webhooksReceived += scope.receiver.received.length;
        if (scope.mode === 'test') {
          assert.deepEqual(
            [...received].sort(),
            own.map((row) => row.id).sort(),
            `${scope.label} received each of its deliveries`,
          );
        } else {
          assert.equal(
            scope.receiver.received.length,
            0,
            `${scope.label}: live webhooks never reach a private address`,
          );
          assert.ok(
            own.length >= 3 && own.every((row) => row.attempts >= 1 && row.last_error !== null),
            `${scope.label}: every live delivery was tried and refused`,
          );
        }
      }
      assert.deepEqual(await checkLedger(gw.gateway.database.db), []);
    } finally {
      reportScenario(`isolation-${kind}`, {
        runs: RUNS,
        seed: SEED,
        ...figures,
        seconds: Math.round((performance.now() - started) / 100) / 10,
      });
      for (const receiver of receivers) await receiver.close();
      await gw.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    }
  });
}

/**
 * One operation of the actor's key on the target: a read (verify, legacy verify, mobile money
 * verify and details, bank payout details and list, a delivery, the delivery list, the balance) or
 * a change (settling a charge, redelivering a webhook); card verification. The answer must be the actor's own record of that reference, or 404;
 * a change to another's record must leave it as it was.
 */
async function operate(
  gw: TestGateway,
  actor: Scope,
  target: Target,
  choice: number,
  figures: { ownAnswers: number; notFound: number; refusedChanges: number },
): Promise<ApiResponse> {
  const db = gw.gateway.database.db;
  const get = (url: string) => call(gw.url, url, { key: actor.key });
  const expectOwnOrNotFound = (
    answer: ApiResponse,
    own: boolean,
    message: string,
    check: (data: Record<string, unknown>) => void,
  ) => {
    if (!own) {
      assert.equal(answer.status, 404, answer.text);
      assert.equal(answer.body.message, message);
      figures.notFound++;
      return;
    }
    assert.equal(answer.status, 200, answer.text);
    check(answer.body.data);
    figures.ownAnswers++;
  };

  if (target.kind === 'session') {
    const own = actor.sessions.has(target.ref);
    const ops = [`/verify-payment/${target.ref}`, `/api/verify-payment/${target.ref}`];
    const answer = await get(ops[choice % ops.length]!);
    expectOwnOrNotFound(answer, own, 'Transaction not found.', (data) => {
      assert.equal(data.tx_ref, target.ref);
      assert.equal(data.mode, actor.mode);
      assert.equal(data.status, actor.sessions.get(target.ref)!.status);
      assert.equal(
        typeof data.customer === 'object' ? (data.customer as { first_name: string }).first_name : data.first_name,
        actor.marker,
      );
    });
    return answer;
  }

  if (target.kind === 'charge') {
    const own = actor.charges.has(target.ref);
    const bankPayouts = [...actor.charges].filter(([, charge]) => charge.bank).map(([ref]) => ref);
    if (choice % 5 === 3) {
      // Payouts through the banks list: the actor's own, or 404 (any other record with that charge_id included).
      const answer = await get(`/direct-charge/payouts/${target.ref}/details`);
      expectOwnOrNotFound(answer, bankPayouts.includes(target.ref), 'Transaction not found.', (data) => {
        assert.equal(data.charge_id, target.ref);
        assert.equal(data.mode, actor.mode === 'test' ? 'sandbox' : 'live');
        assert.equal(data.status, actor.charges.get(target.ref)!.status);
        assert.equal((data.recipient_account_details as { account_name: string }).account_name, actor.marker);
      });
      return answer;
    }
    if (choice % 5 === 4) {
      // The list: the actor's own payouts through the banks list, all of them, and nothing else.
      const answer = await get('/direct-charge/payouts');
      assert.equal(answer.status, 200, answer.text);
      const listed = answer.body.data.data as Array<{
        charge_id: string;
        recipient_account_details: { account_name: string };
      }>;
      assert.deepEqual(listed.map((record) => record.charge_id).sort(), bankPayouts.sort());
      assert.ok(listed.every((record) => record.recipient_account_details.account_name === actor.marker));
      figures.ownAnswers++;
      return answer;
    }
    if (choice % 3 === 2 && !own) {
      // Settling another's pending charge: refused (a live key may not settle at all), and it stays as it was.
      const before = await db
        .selectFrom('charges')
        .select(['status', 'updated_at'])
        .where('merchant_id', '=', target.scope.merchant.id)
        .where('mode', '=', target.scope.mode)
        .where('charge_id', '=', target.ref)
        .executeTakeFirstOrThrow();
      const answer = await get(`/mobile-money/payments/${target.ref}/verify?transaction_status=failed`);
      assert.equal(answer.status, actor.mode === 'live' ? 400 : 404, answer.text);
      const after = await db
        .selectFrom('charges')
        .select(['status', 'updated_at'])
        .where('merchant_id', '=', target.scope.merchant.id)
        .where('mode', '=', target.scope.mode)
        .where('charge_id', '=', target.ref)
        .executeTakeFirstOrThrow();
      assert.deepEqual(after, before, "another scope's charge is unchanged");
      figures.refusedChanges++;
      return answer;
    }
    if (choice % 7 === 5) {
      // Bank transfer charges: the actor's own, or 404 (any other record with that charge_id included).
      const answer = await get(`/direct-charge/transactions/${target.ref}/details`);
      expectOwnOrNotFound(
        answer,
        actor.charges.get(target.ref)?.transfer === true,
        'Transaction not found.',
        (data) => {
          const transaction = data.transaction as { charge_id: string; mode: string; status: string; amount: number };
          assert.equal(transaction.charge_id, target.ref);
          assert.equal(transaction.mode, actor.mode === 'test' ? 'sandbox' : 'live');
          assert.equal(transaction.status, actor.charges.get(target.ref)!.status);
          assert.equal(transaction.amount, actor.amount);
        },
      );
      return answer;
    }
    if (choice % 7 === 6) {
      // Card verification: the actor's own card charge; its own charge of another channel is refused by name; anything else 404.
      const answer = await get(`/charge-card/verify/${target.ref}`);
      if (own && !actor.charges.get(target.ref)!.card) {
        assert.equal(answer.status, 400, answer.text);
        figures.ownAnswers++;
        return answer;
      }
      expectOwnOrNotFound(answer, own, 'Transaction not found.', (data) => {
        assert.equal(data.charge_id, target.ref);
        assert.equal(data.mode, actor.mode === 'test' ? 'sandbox' : 'live');
        assert.equal(data.status, actor.charges.get(target.ref)!.status);
        assert.equal(data.first_name, actor.marker);
      });
      return answer;
    }
    const answer = await get(`/mobile-money/payments/${target.ref}/${choice % 2 === 0 ? 'verify' : 'details'}`);
    expectOwnOrNotFound(answer, own, 'Transaction not found.', (data) => {
      assert.equal(data.charge_id, target.ref);
      assert.equal(data.mode, actor.mode === 'test' ? 'sandbox' : 'live');
      assert.equal(data.status, actor.charges.get(target.ref)!.status);
      assert.equal(data.first_name, actor.charges.get(target.ref)!.payout ? null : actor.marker);
    });
    return answer;
  }

  if (target.kind === 'refund') {
    const own = actor.refunds.has(target.ref);
    const { chargeId } = target.scope.refunds.get(target.ref)!;
    if (choice % 3 === 2 && !own) {
      // Refunding another's payment: 404, and its payment keeps what was left to refund.
      const charge = () =>
        db
          .selectFrom('charges')
          .select(['refunded_minor', 'updated_at'])
          .where('merchant_id', '=', target.scope.merchant.id)
          .where('mode', '=', target.scope.mode)
          .where('charge_id', '=', chargeId)
          .executeTakeFirstOrThrow();
      const before = await charge();
      const answer = await call(gw.url, '/refunds', { key: actor.key, body: { charge_id: chargeId, amount: 1 } });
      assert.equal(answer.status, 404, answer.text);
      assert.deepEqual(await charge(), before, "another scope's payment is not refunded");
      figures.refusedChanges++;
      return answer;
    }
    if (choice % 3 === 1) {
      const answer = await get(`/refunds?charge_id=${chargeId}`);
      expectOwnOrNotFound(answer, own, 'Transaction not found.', () => {
        const expected = [...actor.refunds].filter(([, refund]) => refund.chargeId === chargeId).map(([id]) => id);
        assert.deepEqual(
          (answer.body.data as Array<{ refund_id: string }>).map((refund) => refund.refund_id),
          expected,
        );
      });
      return answer;
    }
    const answer = await get(`/refunds/${target.ref}`);
    expectOwnOrNotFound(answer, own, 'Transaction not found.', (data) => {
      assert.equal(data.refund_id, target.ref);
      assert.equal(data.charge_id, chargeId);
      assert.equal(data.status, actor.refunds.get(target.ref)!.status);
    });
    return answer;
  }

  const own = actor.deliveries.has(target.ref);
  switch (choice % 4) {
    case 0: {
      const answer = await get(`/webhooks/deliveries/${target.ref}`);
      expectOwnOrNotFound(answer, own, 'Webhook delivery not found.', (data) => assert.equal(data.id, target.ref));
      return answer;
    }
    case 1: {
      // Its own scope may have queued it again a moment ago: once the workers are done with it, it
      // stays still unless this request queues it again.
      const before = await eventually('the delivery is not due', () =>
        db
          .selectFrom('webhook_deliveries')
          .select(['status', 'updated_at', 'next_attempt_at'])
          .where('id', '=', target.ref)
          .where((eb) => eb.or([eb('status', '!=', 'pending'), eb('next_attempt_at', '>', Date.now())]))
          .executeTakeFirst(),
      );
      const answer = await call(gw.url, `/webhooks/deliveries/${target.ref}/redeliver`, {
        key: actor.key,
        method: 'POST',
      });
      expectOwnOrNotFound(answer, own, 'Webhook delivery not found.', (data) => assert.equal(data.id, target.ref));
      if (!own) {
        const after = await db
          .selectFrom('webhook_deliveries')
          .select(['status', 'updated_at', 'next_attempt_at'])
          .where('id', '=', target.ref)
          .executeTakeFirstOrThrow();
        assert.deepEqual(after, before, "another scope's delivery is not queued again");
        figures.refusedChanges++;
      }
      return answer;
    }
    case 2: {
      // The list, filtered by the target's references or not at all: only the actor's deliveries, all of them.
      const { txRef, chargeId } = target.scope.deliveries.get(target.ref)!;
      const filter =
        choice % 8 < 4 && txRef ? `tx_ref=${txRef}` : choice % 8 < 6 && chargeId ? `charge_id=${chargeId}` : '';
      const answer = await get(`/webhooks/deliveries?per_page=100&${filter}`);
      assert.equal(answer.status, 200, answer.text);
      const expected = [...actor.deliveries].filter(
        ([, d]) =>
          (!filter.startsWith('tx_ref') || d.txRef === txRef) &&
          (!filter.startsWith('charge_id') || d.chargeId === chargeId),
      );
      assert.deepEqual(
        (answer.body.data.data as Array<{ id: string }>).map((d) => d.id).sort(),
        expected.map(([id]) => id).sort(),
      );
      figures.ownAnswers++;
      return answer;
    }
    default: {
      const answer = await get('/wallet-balance?currency=MWK');
      assert.equal(answer.status, 200, answer.text);
      const accounts = await db
        .selectFrom('ledger_accounts')
        .select(['kind', 'balance_minor'])
        .where('owner', '=', actor.merchant.id)
        .where('mode', '=', actor.mode)
        .where('currency', '=', 'MWK')
        .execute();
      const balance = (kind: string) =>
        Number(accounts.find((account) => account.kind === kind)?.balance_minor ?? 0) / 100;
      assert.deepEqual(answer.body.data, {
        environment: actor.mode,
        currency: 'MWK',
        main_balance: balance('main').toFixed(2),
        collection_balance: balance('collection'),
      });
      figures.ownAnswers++;
      return answer;
    }
  }
}

/**
 * Two merchants, each in both modes, each with: a pending and a paid checkout session and one
 * only it has; a paid direct charge, a pending one only it has, a payout and one through the
 * banks list (pending in test mode, refused by the unconnected live provider); the webhook
 * deliveries these caused, to a receiver of the scope's own. Test records are made through the
 * API and the hosted page; live ones that must have succeeded through the payment services.
 */
async function seedScopes(gw: TestGateway, receivers: Receiver[]): Promise<Scope[]> {
  const db = gw.gateway.database.db;
  const scopes: Scope[] = [];
  for (const [index, name] of ['A', 'B'].entries()) {
    const merchant = await gw.newMerchant(`Isolation ${name}`);
    for (const mode of ['test', 'live'] as const) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const label = `${name}-${mode}`;
      scopes.push({
        label,
        merchant,
        mode,
        key: mode === 'test' ? merchant.test_secret_key : merchant.live_secret_key,
        marker: `Mark${name}${mode}Zq${index}`,
        amount: 1_000 * (scopes.length + 1) + 7,
        sessions: new Map(),
        refunds: new Map(),
        charges: new Map(),
        deliveries: new Map(),
        private: new Set(),
        receiver,
      });
    }
  }
  for (const scope of scopes) await openPublicKeySessions(gw, scope);
  const deps = paymentDeps(loadConfig({}), gw.gateway.database);
  const useReceivers = (mode: Mode) =>
    Promise.all(
      scopes
        .filter((scope) => scope.mode === mode)
        .map((scope) => updateMerchantSettings(db, scope.merchant.id, { webhookUrl: scope.receiver.url }, Date.now())),
    );

  await useReceivers('test');
  for (const scope of scopes.filter((s) => s.mode === 'test')) {
    await openSession(gw, scope, SHARED.pendingOrder);
    await openSession(gw, scope, `iso-only-${scope.label}`);
    const paid = await openSession(gw, scope, SHARED.paidOrder);
    const posted = await paid.client.post(`${paid.pagePath}/pay/card`, {
      card_number: '4242 4242 4242 4242',
      expiry: '12/40',
      cvv: '123',
    });
    assert.equal(posted.status, 303, posted.text.slice(0, 300));
    assert.equal((await paid.client.post(`${new URL(posted.location!).pathname}/otp`, { otp: '1234' })).status, 303);
    scope.sessions.set(SHARED.paidOrder, { status: 'success' });
    const names = {
      first_name: scope.marker,
      last_name: scope.marker,
      email: `${scope.marker.toLowerCase()}@example.com`,
    };
    assert.equal(
      (await initializeCharge(gw, scope.key, chargeBody({ ...names, charge_id: SHARED.charge, amount: scope.amount })))
        .status,
      201,
    );
    assert.equal((await verify(gw, scope.key, SHARED.charge, 'success')).body.data.status, 'success');
    scope.charges.set(SHARED.charge, { status: 'success' });
    const only = `iso-charge-only-${scope.label}`;
    assert.equal((await initializeCharge(gw, scope.key, chargeBody({ ...names, charge_id: only }))).status, 201);
    scope.charges.set(only, { status: 'pending' });
    assert.equal(
      (
        await initializeCharge(
          gw,
          scope.key,
          chargeBody({ ...names, charge_id: paidOnly(scope), amount: scope.amount }),
        )
      ).status,
      201,
    );
    assert.equal((await verify(gw, scope.key, paidOnly(scope), 'success')).body.data.status, 'success');
    scope.charges.set(paidOnly(scope), { status: 'success' });
    // A direct card charge through its 3-D Secure page (live keys have no acquirer to take one).
    const card = await chargeCard(
      gw,
      scope.key,
      cardBody({
        charge_id: SHARED.card,
        amount: scope.amount,
        cardholder_name: `${scope.marker} ${scope.marker}`,
        email: names.email,
      }),
    );
    assert.equal(card.status, 200, card.text);
    const threeDs = await openThreeDs(gw, card.body['3ds_auth_link']);
    assert.equal((await threeDs.client.post(threeDs.path, { otp: '1234' })).status, 303);
    scope.charges.set(SHARED.card, { status: 'success', card: true });
    scope.private.add(card.body.orderReference);
  }
  await settleCollections(db, Date.now());
  for (const scope of scopes.filter((s) => s.mode === 'test')) {
    const names = {
      first_name: scope.marker,
      last_name: scope.marker,
      email: `${scope.marker.toLowerCase()}@example.com`,
    };
    const payout = await initializePayout(
      gw,
      scope.key,
      payoutBody({ ...names, charge_id: SHARED.payout, amount: 100 }),
    );
    assert.equal(payout.status, 201, payout.text);
    scope.charges.set(SHARED.payout, { status: 'success', payout: true });
    // Pending for the whole test (SANDBOX_MOBILE_DELAY 1h).
    const bank = await initializeBankPayout(
      gw,
      scope.key,
      bankPayoutBody({ ...names, bank_account_name: scope.marker, charge_id: SHARED.bankPayout, amount: 100 }),
    );
    assert.equal(bank.status, 201, bank.text);
    scope.charges.set(SHARED.bankPayout, { status: 'pending', payout: true, bank: true });
    // A bank transfer charge, pending for the whole test (live keys cannot open accounts).
    const transfer = await initializeBankTransfer(
      gw,
      scope.key,
      bankTransferBody({ ...names, charge_id: SHARED.transfer, amount: scope.amount }),
    );
    assert.equal(transfer.status, 201, transfer.text);
    scope.charges.set(SHARED.transfer, { status: 'pending', transfer: true });
  }

  await useReceivers('live');
  for (const scope of scopes.filter((s) => s.mode === 'live')) {
    await openSession(gw, scope, SHARED.pendingOrder);
    await openSession(gw, scope, `iso-only-${scope.label}`);
    const paid = await openSession(gw, scope, SHARED.paidOrder);
    await paidLiveAttempt(gw, deps, paid.id);
    scope.sessions.set(SHARED.paidOrder, { status: 'success' });
    await liveDirectCharge(gw, deps, scope, SHARED.charge, 'success');
    await liveDirectCharge(gw, deps, scope, `iso-charge-only-${scope.label}`, null);
    await liveDirectCharge(gw, deps, scope, paidOnly(scope), 'success');
  }
  await settleCollections(db, Date.now());
  for (const scope of scopes.filter((s) => s.mode === 'live')) {
    // No live operator is connected: the payout is recorded as failed and its reservation released.
    const names = {
      first_name: scope.marker,
      last_name: scope.marker,
      email: `${scope.marker.toLowerCase()}@example.com`,
    };
    const payout = await initializePayout(
      gw,
      scope.key,
      payoutBody({ ...names, charge_id: SHARED.payout, amount: 100 }),
    );
    assert.equal(payout.status, 201, payout.text);
    assert.equal(payout.body.data.status, 'failed');
    scope.charges.set(SHARED.payout, { status: 'failed', payout: true });
    const bank = await initializeBankPayout(
      gw,
      scope.key,
      bankPayoutBody({ ...names, bank_account_name: scope.marker, charge_id: SHARED.bankPayout, amount: 100 }),
    );
    assert.equal(bank.status, 201, bank.text);
    assert.equal(bank.body.data.transaction.status, 'failed');
    scope.charges.set(SHARED.bankPayout, { status: 'failed', payout: true, bank: true });
  }
  await useReceivers('test');

  // Part of each scope's paid-only charge refunded through the API: a test refund stays pending (the
  // sandbox completes it after SANDBOX_MOBILE_DELAY, an hour here), a live one fails at once (Airtel
  // Money, the one live route, refunds whole payments only) and its webhook is refused like every live one.
  for (const mode of ['test', 'live'] as const) {
    await useReceivers(mode);
    for (const scope of scopes.filter((s) => s.mode === mode)) {
      const created = await call(gw.url, '/refunds', {
        key: scope.key,
        body: { charge_id: paidOnly(scope), amount: 100 },
      });
      assert.equal(created.status, 201, created.text);
      scope.refunds.set(created.body.data.refund_id, {
        status: mode === 'test' ? 'pending' : 'failed',
        chargeId: paidOnly(scope),
      });
      scope.private.add(created.body.data.refund_id);
    }
  }
  await eventually(
    'every live refund to fail',
    async () =>
      (await db.selectFrom('refunds').select('id').where('mode', '=', 'live').where('status', '=', 'pending').execute())
        .length === 0,
  );
  await useReceivers('test');

  // Every live delivery was tried (and refused by the address guard) before the property runs,
  // so that the rows the property compares stay still.
  await eventually(
    'every webhook tried once',
    async () =>
      (await db.selectFrom('webhook_deliveries').select('id').where('attempts', '=', 0).execute()).length === 0,
  );
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'merchant_id', 'mode', 'tx_ref', 'charge_id'])
    .execute();
  const sessions = await db
    .selectFrom('checkout_sessions')
    .select(['id', 'merchant_id', 'mode', 'reference'])
    .execute();
  const charges = await db
    .selectFrom('charges')
    .select(['id', 'merchant_id', 'mode', 'ref_id', 'charge_id', 'session_id'])
    .execute();
  for (const scope of scopes) {
    const mine = <T extends { merchant_id: string; mode: string }>(row: T) =>
      row.merchant_id === scope.merchant.id && row.mode === scope.mode;
    for (const row of deliveries.filter(mine)) {
      scope.deliveries.set(row.id, { txRef: row.tx_ref, chargeId: row.charge_id });
      scope.private.add(row.id);
    }
    for (const row of sessions.filter(mine)) scope.private.add(row.id).add(row.reference);
    for (const row of charges.filter(mine)) {
      scope.private.add(row.id).add(row.ref_id);
      if (row.session_id) scope.private.add(row.charge_id);
    }
    for (const ref of scope.sessions.keys()) if (!Object.values(SHARED).includes(ref as never)) scope.private.add(ref);
    for (const ref of scope.charges.keys()) if (!Object.values(SHARED).includes(ref as never)) scope.private.add(ref);
  }
  return scopes;
}

async function openSession(
  gw: TestGateway,
  scope: Scope,
  txRef: string,
): Promise<{ id: string; client: CheckoutClient; pagePath: string }> {
  const body = currentBody({
    tx_ref: txRef,
    amount: scope.amount,
    first_name: scope.marker,
    last_name: scope.marker,
    customization: { title: scope.marker, description: scope.marker },
    meta: { owner: scope.marker },
  });
  const created = await call(gw.url, '/payment', { key: scope.key, body });
  assert.equal(created.status, 201, created.text);
  scope.sessions.set(txRef, { status: 'pending' });
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  const client = new CheckoutClient(gw.url);
  assert.equal((await client.get(pagePath)).status, 200);
  return { id: pagePath.split('/').pop()!, client, pagePath };
}

/**
 * Sessions made with the scope's public key, through the inline popup's create and the HTML
 * checkout's form, under references every scope shares: they belong to the key's merchant and mode
 * as any session does.
 */
async function openPublicKeySessions(gw: TestGateway, scope: Scope): Promise<void> {
  const publicKey = scope.mode === 'test' ? scope.merchant.test_public_key : scope.merchant.live_public_key;
  const fields = {
    amount: scope.amount,
    first_name: scope.marker,
    last_name: scope.marker,
    customization: { title: scope.marker, description: scope.marker },
    meta: { owner: scope.marker },
  };
  const created = await call(gw.url, '/popup/payment', {
    key: publicKey,
    body: currentBody({ tx_ref: SHARED.popupOrder, ...fields }),
    headers: { origin: 'https://shop.example.com' },
  });
  assert.equal(created.status, 201, created.text);
  scope.sessions.set(SHARED.popupOrder, { status: 'pending' });
  const form = new URLSearchParams({
    public_key: publicKey,
    tx_ref: SHARED.formOrder,
    amount: String(scope.amount),
    currency: 'MWK',
    callback_url: 'https://shop.example.com/paid',
    return_url: 'https://shop.example.com/back',
    first_name: scope.marker,
    last_name: scope.marker,
    title: scope.marker,
    description: scope.marker,
    'meta[owner]': scope.marker,
  });
  const posted = await fetch(`${gw.url}/hosted-payment-page`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  assert.equal(posted.status, 302, await posted.text());
  scope.sessions.set(SHARED.formOrder, { status: 'pending' });
}

/** A live card attempt that the acquirer approved: recorded, then ended through the checkout's own completion. */
async function paidLiveAttempt(
  gw: TestGateway,
  deps: ReturnType<typeof paymentDeps>,
  sessionId: string,
): Promise<void> {
  const db = gw.gateway.database.db;
  const session = await db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const now = Date.now();
  const charge: Charge = {
    id: ids.chargeRef(),
    merchant_id: session.merchant_id,
    mode: session.mode,
    charge_id: ids.attemptChargeId(),
    ref_id: ids.reference(),
    session_id: session.id,
    kind: 'payment',
    channel: 'card',
    operator: null,
    mobile: null,
    card_brand: 'VISA',
    card_number: '424242******4242',
    card_expiry: '2040-12',
    status: 'pending',
    next_action: null,
    failure_reason: null,
    failure_code: null,
    provider_state: null,
    check_at: null,
    amount_minor: session.amount_minor,
    currency: session.currency,
    fee_minor: 0,
    first_name: session.first_name,
    last_name: session.last_name,
    email: session.email,
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
  assert.ok(await claimAttemptSlot(db, session.id, charge.id, now), "the attempt is the session's attempt in flight");
  assert.ok(await insertChargeIfNew(db, charge));
  await countAttempt(db, session.id, now);
  assert.ok(await completeCheckoutCharge(deps, charge, { status: 'success', transId: `live-${charge.ref_id}` }, now));
}

/** A live direct charge, recorded as the direct charge service records one, and approved (or left pending). */
async function liveDirectCharge(
  gw: TestGateway,
  deps: ReturnType<typeof paymentDeps>,
  scope: Scope,
  chargeId: string,
  outcome: 'success' | null,
): Promise<void> {
  const request = {
    mobile: TEST_NUMBERS.airtelSuccess,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount: scope.amount,
    charge_id: chargeId,
    first_name: scope.marker,
    last_name: scope.marker,
    email: `${scope.marker.toLowerCase()}@example.com`,
  };
  const owner = { merchantId: scope.merchant.id, mode: scope.mode };
  const charge = await recordDirectPayment(gw.gateway.database, owner, request);
  if (outcome)
    assert.ok(
      await completeDirectCharge(deps, charge, { status: 'success', transId: `live-${charge.ref_id}` }, Date.now()),
    );
  scope.charges.set(chargeId, { status: outcome ?? 'pending' });
}
