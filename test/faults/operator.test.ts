import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Charge } from '../../src/core/charge-repository.ts';
import type { Behaviour } from '../fakes/airtel-server.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call } from '../helpers/gateway.ts';
import { chargeBody, eventually } from '../helpers/mobile-money.ts';
import { startCallbackRelay } from './operator-relay.ts';
import {
  airtelCustomer,
  assertEachCountedOnce,
  attemptOn,
  assertLedgerCheckPasses,
  chargeOn,
  liveRecords,
  payoutOn,
  reviewList,
  startsReceived,
  startOperatorWorld,
  type OperatorWorld,
} from './operator-world.ts';
import { reportScenario } from './report.ts';

/**
 * Issue 18, the operator misbehaving: Airtel Money down past the review deadline (with a server
 * SIGKILLed meanwhile), Airtel answering after our timeout while it takes the money, and Airtel
 * sending every callback twice, late, to two processes at once, among forged ones. Real `lipira
 * serve` processes against the fake Airtel; whatever happens, a charge is never failed on an
 * unknown outcome, never pushed twice, and counted once, and `lipira ledger check` passes.
 */

const REVIEW_AFTER_MS = 2_000;
/** Longer than the worlds' CONNECTOR_TIMEOUT of 500 ms in the slow scenario. */
const SLOW_ANSWER_MS = 1_200;

for (const kind of DATABASE_KINDS) {
  // Processes share a database only on PostgreSQL (docs/operate/deployment.md): one process on SQLite.
  const processes = kind === 'postgres' ? 2 : 1;

  describe(`the mobile money operator misbehaves, on ${kind} with ${processes} process(es)`, () => {
    test(
      'operator down past the review deadline, a process SIGKILLed mid-outage: every direct charge and checkout attempt stays pending, is flagged, then settles once',
      { timeout: 90_000 },
      async (t) => {
        const started = Date.now();
        const world = await startOperatorWorld(t, kind, processes);
        // The fake keeps the behaviour it was given: changing it later is the customers approving.
        const approval: Behaviour = { states: ['TIP'] };
        const customers = Array.from({ length: 20 }, () => airtelCustomer());
        for (const customer of customers) world.fake.script(customer.local, approval);
        const chargeIds = await Promise.all(
          customers.map(async (customer, index) => {
            const { chargeId, answer } = await chargeOn(world.servers[index % processes]!, world, customer.mobile);
            assert.equal(answer.status, 201, answer.text);
            assert.equal(answer.body.data.status, 'pending');
            return chargeId;
          }),
        );

        const attempts = await Promise.all(
          Array.from({ length: 4 }, async (_, index) => {
            const customer = airtelCustomer();
            world.fake.script(customer.local, approval);
            return attemptOn(world.servers[index % processes]!, world, customer.mobile);
          }),
        );
        chargeIds.push(...attempts.map((attempt) => attempt.chargeId));

        world.fake.outage(true);
        const outageFrom = Date.now();
        await eventually(
          'every charge to be flagged for review',
          async () => (await liveRecords(world, chargeIds)).every((record) => record.review_reason !== null),
          15_000,
        );
        assert.deepEqual(notPending(await liveRecords(world, chargeIds)), [], 'an outage fails no charge');
        assert.deepEqual(
          (await reviewList(world)).sort(),
          [...chargeIds].sort(),
          '`lipira charges review` lists every charge past the deadline',
        );

        // The customers' pages keep asking, on every process: each ask reaches Airtel's 503 and ends nothing.
        for (const server of world.servers) {
          for (const attempt of attempts) {
            const status = await call(server.url, `${attempt.attemptPath}/status`);
            assert.equal(status.status, 200, status.text);
            assert.equal(status.body.next_url ?? null, null, 'the page keeps waiting');
          }
        }

        const killedAfterMs = Date.now() - outageFrom;
        await world.crashAndRestart(processes - 1);
        // The restarted process has no Airtel token and cannot get one: its asks fail before leaving.
        await sleep(1_000);
        assert.deepEqual(notPending(await liveRecords(world, chargeIds)), [], 'still pending after the restart');
        assert.ok(Date.now() - outageFrom > REVIEW_AFTER_MS, 'the outage outlasted the review deadline');

        approval.states = ['TS'];
        world.fake.outage(false);
        const outageMs = Date.now() - outageFrom;
        const settled = await eventually(
          'every charge to settle',
          async () => {
            const records = await liveRecords(world, chargeIds);
            return notPending(records).length === records.length ? records : null;
          },
          20_000,
        );
        assert.deepEqual(
          settled.filter((record) => record.status !== 'success').map((record) => record.charge_id),
          [],
          'every charge paid',
        );
        await assertEachCountedOnce(world, settled);
        const sessions = await world.database.db
          .selectFrom('checkout_sessions')
          .select('status')
          .where('merchant_id', '=', world.merchant.id)
          .execute();
        assert.deepEqual(
          sessions.map((session) => session.status),
          attempts.map(() => 'success'),
          'each checkout session paid by its attempt',
        );
        assert.deepEqual(await reviewList(world), [], 'the review list empties once every charge is final');
        await assertLedgerCheckPasses(world);

        reportScenario(`operator-down-${kind}`, {
          processes,
          direct_charges: chargeIds.length - attempts.length,
          checkout_attempts: attempts.length,
          outage_ms: outageMs,
          killed_after_ms: killedAfterMs,
          flagged: chargeIds.length,
          failed: 0,
          settled_once: settled.length,
          total_ms: Date.now() - started,
        });
      },
    );

    test(
      'operator slow (answers after our timeout, money taken): charges and a payout stay pending, none sent twice, each settles once when it is fast again',
      { timeout: 90_000 },
      async (t) => {
        const started = Date.now();
        const world = await startOperatorWorld(t, kind, processes, { CONNECTOR_TIMEOUT: '500ms' });
        // While Airtel is fast, each process gets its token and the merchant a live balance to pay
        // out from: a token request that times out is refused at once, and moved nothing.
        const funding = await Promise.all(
          world.servers.map(async (server) => {
            const customer = airtelCustomer();
            world.fake.script(customer.local, { states: ['TS'] });
            const { chargeId, answer } = await chargeOn(server, world, customer.mobile, 5_000);
            assert.equal(answer.status, 201, answer.text);
            return chargeId;
          }),
        );
        await eventually('the funding charges to settle', async () =>
          (await liveRecords(world, funding)).every((record) => record.status === 'success'),
        );
        const settle = await lipira(['ledger', 'settle'], { DATABASE_URL: world.databaseUrl });
        assert.equal(settle.code, 0, settle.stderr);

        world.fake.answerAfter(SLOW_ANSWER_MS);
        // Each charge is asked for twice at once, on two processes where there are two, as a
        // merchant retrying a request that is slow to answer would.
        const chargeIds = await Promise.all(
          Array.from({ length: 10 }, async (_, index) => {
            const customer = airtelCustomer();
            world.fake.script(customer.local, { states: ['TS'] });
            const body = chargeBody({ mobile: customer.mobile });
            const answers = await Promise.all(
              [0, 1].map((twin) =>
                call(world.servers[(index + twin) % processes]!.url, '/mobile-money/payments/initialize', {
                  key: world.merchant.live_secret_key,
                  body,
                }),
              ),
            );
            for (const answer of answers) {
              assert.ok(answer.status === 200 || answer.status === 201, answer.text);
              assert.equal(answer.body.data.status, 'pending', 'a push whose answer timed out is pending, not failed');
            }
            return String(body.charge_id);
          }),
        );
        const payee = airtelCustomer();
        const payout = await payoutOn(world.servers[0]!, world, payee.mobile, 1_000);
        assert.equal(payout.answer.status, 201, payout.answer.text);
        assert.equal(
          payout.answer.body.data.status,
          'pending',
          'a disbursement whose answer timed out is pending, not failed',
        );

        // The settler asks meanwhile, and every ask times out.
        await sleep(2_000);
        const slow = await liveRecords(world, [...chargeIds, payout.chargeId]);
        assert.deepEqual(notPending(slow), [], 'nothing ends while Airtel answers too late');
        const asked = slow.reduce((sum, record) => sum + (world.fake.transaction(record.id)?.enquiries ?? 0), 0);
        assert.ok(asked > 0, 'the settler asked while Airtel was slow');
        for (const record of slow) {
          const path = record.kind === 'payout' ? '/standard/v1/disbursements/' : '/merchant/v1/payments/';
          assert.equal(startsReceived(world.fake, path, record.id), 1, `${record.charge_id} sent once while slow`);
        }

        world.fake.answerAfter(0);
        const settled = await eventually(
          'every charge and the payout to settle',
          async () => {
            const records = await liveRecords(world, [...funding, ...chargeIds, payout.chargeId]);
            return notPending(records).length === records.length ? records : null;
          },
          30_000,
        );
        assert.deepEqual(
          settled.filter((record) => record.status !== 'success').map((record) => record.charge_id),
          [],
          'every charge and the payout succeeded',
        );
        await assertEachCountedOnce(world, settled);
        assert.deepEqual(await reviewList(world), []);
        await assertLedgerCheckPasses(world);

        reportScenario(`operator-slow-${kind}`, {
          processes,
          charges: chargeIds.length,
          requests_per_charge: 2,
          payouts: 1,
          enquiries_while_slow: asked,
          pushes_per_charge: 1,
          disbursements_per_payout: 1,
          settled_once: settled.length,
          total_ms: Date.now() - started,
        });
      },
    );

    test(
      'operator answers twice, late, to two processes at once, forged callbacks among them: each charge counted once, the forged refused with nothing changed',
      { timeout: 90_000 },
      async (t) => {
        const started = Date.now();
        const world = await startOperatorWorld(t, kind, processes);
        const endpoints = world.servers.map((server) => `${server.url}/callbacks/airtel`);
        // On SQLite the one process takes both copies at once.
        const relay = await startCallbackRelay(processes > 1 ? endpoints : [endpoints[0]!, endpoints[0]!]);
        t.after(() => relay.close());
        world.fake.callbacksTo(relay.url);

        const pushAll = (count: number, behaviour: Behaviour) =>
          Promise.all(
            Array.from({ length: count }, async (_, index) => {
              const customer = airtelCustomer();
              world.fake.script(customer.local, behaviour);
              const { chargeId, answer } = await chargeOn(world.servers[index % processes]!, world, customer.mobile);
              assert.equal(answer.status, 201, answer.text);
              return chargeId;
            }),
          );
        const paidIds = await pushAll(12, { states: ['TS'] });
        const waitingIds = await pushAll(4, { approveAfterMs: 600_000 });
        const paid = await eventually('the settler to end the paid charges', async () => {
          const records = await liveRecords(world, paidIds);
          return records.every((record) => record.status === 'success') ? records : null;
        });
        const waiting = await liveRecords(world, waitingIds);

        const before = await moneySnapshot(world);
        const genuine = paid.map((record) => world.fake.sendCallback(record.id, { duplicate: true }));
        const forged = [
          ...waiting.flatMap((record) => [
            world.fake.sendCallback(record.id, { secret: 'not-the-callback-key' }),
            world.fake.sendCallback(record.id, { tamper: true }),
            world.fake.sendCallback(record.id, { secret: null }),
          ]),
          ...paid.slice(0, 4).map((record) => world.fake.sendCallback(record.id, { secret: 'not-the-callback-key' })),
        ];
        const [genuineStatuses, forgedStatuses] = await Promise.all([Promise.all(genuine), Promise.all(forged)]);
        assert.deepEqual(
          genuineStatuses,
          paid.map(() => [200, 200]),
          'each late copy answered 200 by every process',
        );
        assert.deepEqual(
          forgedStatuses,
          forged.map(() => [401]),
          'each forged callback refused by every process',
        );
        assert.deepEqual(await moneySnapshot(world), before, 'late and forged callbacks changed nothing');
        await assertEachCountedOnce(world, paid);

        // Callbacks racing the settler: sent, twice to each process, the moment the customers approve.
        const approveAfterMs = 1_500;
        const racingIds = await pushAll(6, { approveAfterMs });
        const racing = await liveRecords(world, racingIds);
        await sleep(approveAfterMs + 50);
        const racingStatuses = await Promise.all(
          racing.map((record) => world.fake.sendCallback(record.id, { duplicate: true })),
        );
        assert.deepEqual(
          racingStatuses,
          racing.map(() => [200, 200]),
        );
        const raced = await eventually('the racing charges to end', async () => {
          const records = await liveRecords(world, racingIds);
          return records.every((record) => record.status === 'success') ? records : null;
        });
        await assertEachCountedOnce(world, raced);
        assert.deepEqual(notPending(await liveRecords(world, waitingIds)), [], 'forged callbacks ended nothing');
        await assertLedgerCheckPasses(world);

        reportScenario(`operator-twice-${kind}`, {
          processes,
          late_charges: paid.length,
          late_callbacks_delivered: paid.length * 4,
          racing_charges: racing.length,
          racing_callbacks_delivered: racing.length * 4,
          forged_callbacks: forged.length,
          forged_deliveries_refused: forged.length * 2,
          counted_twice: 0,
          total_ms: Date.now() - started,
        });
      },
    );
  });
}

const notPending = (records: Charge[]): string[] =>
  records.filter((record) => record.status !== 'pending').map((record) => record.charge_id);

/** What a callback could change: each record's outcome, the events, and every ledger balance. */
async function moneySnapshot(world: OperatorWorld): Promise<unknown> {
  const { db } = world.database;
  const charges = await db
    .selectFrom('charges')
    .select(['id', 'status', 'trans_id', 'completed_at', 'failure_reason'])
    .orderBy('id')
    .execute();
  const events = await db.selectFrom('events').select('id').orderBy('id').execute();
  const balances = await db
    .selectFrom('ledger_accounts')
    .select(['owner', 'kind', 'mode', 'balance_minor'])
    .orderBy('owner')
    .orderBy('kind')
    .orderBy('mode')
    .execute();
  const transactions = await db.selectFrom('ledger_transactions').select('id').orderBy('id').execute();
  return { charges, events, balances, transactions };
}
