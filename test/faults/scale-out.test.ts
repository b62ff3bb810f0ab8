import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/database.ts';
import { checkLedger } from '../../src/ledger/ledger-service.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { lipira } from '../helpers/cli.ts';
import { inBatches } from '../helpers/batches.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { reportScenario } from './report.ts';
import { Cluster, FAULT } from './scale-out-cluster.ts';
import { problemWith, runLoad, verify, type Tally } from './scale-out-load.ts';
import { startWatchingReceiver, type WatchingReceiver } from './scale-out-receiver.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { localPortsOf } from './process-sockets.ts';

/**
 * Issue 8, scale-out: three `lipira serve` processes on one PostgreSQL behind a round-robin
 * rotation, a load of creates, hosted-checkout payments (some paid twice at once on two
 * processes) and verifies, and one process SIGKILLed and restarted on its port mid-run. Nothing
 * acknowledged is lost, nothing is credited twice, every webhook arrives, none is ever in flight
 * twice at once, and the ledger check passes.
 */

const PROCESSES = 3;
const WORKERS = 8;
/** The load runs this long at least, and on (at most MAX_LOAD_MS) until it has made what the checks need to mean something. */
const LOAD_MS = 25_000;
const MAX_LOAD_MS = 45_000;
const ENOUGH = { acknowledgedPayments: 100, twinPairs: 15 };
const KILL_AFTER_MS = 10_000;
/** How long the killed process stays in the rotation, as until a load balancer's health check notices. */
const NOTICE_MS = 250;
/** How long its port then stays dead before its replacement starts. */
const DOWN_MS = 1_000;
/** The longest the endpoint holds requests in one stall: well under WEBHOOK_TIMEOUT, so no live sender gives up and sends again. */
const STALL_LIMIT_MS = 1_500;
/** Stalls tried before giving up on catching the doomed process mid-delivery (each lets its requests go after STALL_LIMIT_MS). */
const STALL_TRIES = 20;
/** The webhook lease, as src/webhooks/webhook-worker.ts derives it from WEBHOOK_TIMEOUT (5 s). */
const LEASE_MS = 5_000 * 2 + 10_000;
/** A fault may show a little after the replacement is up: a pooled connection to the dead process found closed. */
const FAULT_GRACE_MS = 2_000;
const KILLED_SLOT = 1;
/** Checks in flight at once after the load. */
const CHECK_BATCH = 24;

/** Retries come quickly, and the lease is 20 s: what the killed process held is sent again by another within the test. */
const SETTINGS = {
  SMTP_URL: '',
  WORKER_INTERVAL: '100ms',
  WEBHOOK_TIMEOUT: '5s',
  WEBHOOK_RETRY_SCHEDULE: '300ms,1s,1s,2s,2s,3s,3s,3s,3s,3s',
  SANDBOX_MOBILE_DELAY: '300ms',
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
  RATE_LIMIT_ADDRESS_BURST: '1000000',
};

const skip = process.env.TEST_DATABASE_URL
  ? false
  : 'needs PostgreSQL (processes share a database only there): set TEST_DATABASE_URL';

test(
  'three processes on one PostgreSQL, one SIGKILLed and restarted under load: nothing lost, nothing doubled, every webhook once at a time',
  { skip, timeout: 150_000 },
  async (t) => {
    const cleanup = useCleanup(t);
    const started = Date.now();
    const testDb = freshDatabase('postgres');
    cleanup(() => testDb.drop());
    const receiver = await startWatchingReceiver();
    cleanup(() => receiver.close());
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    cleanup(async () => fs.rmSync(outbox, { recursive: true, force: true }));
    const env = { ...SETTINGS, DATABASE_URL: testDb.url, OUTBOX_DIR: outbox };

    // As an operator rolls out: migrate once, then start the servers.
    const migrated = await lipira(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    const created = await lipira(
      [
        'merchant',
        'create',
        '--name',
        'Scale Shop',
        '--email',
        'owner@scale.example',
        '--webhook-url',
        receiver.url,
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const merchant = JSON.parse(created.stdout) as MerchantCredentials;
    const database = await openMigratedDatabase(testDb.url);
    cleanup(() => database.close());

    const cluster = await Cluster.start(PROCESSES, env);
    cleanup(() => cluster.disposeAll());
    const ready = Date.now();

    const enough = (tally: Tally) =>
      tally.payments.acknowledgedSuccess >= ENOUGH.acknowledgedPayments && tally.payments.twinPairs >= ENOUGH.twinPairs;
    const load = runLoad(cluster, merchant.test_secret_key, WORKERS, { minMs: LOAD_MS, maxMs: MAX_LOAD_MS, enough });
    await sleep(KILL_AFTER_MS);
    // Catch the doomed process mid-delivery: the endpoint holds what arrives, and the kill comes once
    // it holds a request from that very process, so the process dies holding claims, which lapse and
    // are taken over by the others.
    const stall = await stallUntilHeldBy(receiver, cluster.slots[KILLED_SLOT]!.process.pid);
    const heldAtKill = stall.held();
    const outage = await cluster.crash(KILLED_SLOT, NOTICE_MS);
    stall.release();
    await sleep(DOWN_MS);
    // By now the live processes have recorded what they held; claims still standing from before the kill are the dead process's.
    const orphaned = await claimsOrphanedBy(database, outage.killedAt);
    await cluster.restart(outage);
    const tally = await load;
    const loadEnded = Date.now();
    const explain = () => `\n${cluster.output().slice(-4_000)}`;

    assert.deepEqual(
      tally.unexpected.slice(0, 5),
      [],
      `${tally.unexpected.length} answers were neither right nor cut off by the kill${explain()}`,
    );
    assert.deepEqual(
      tally.contradictions.slice(0, 5),
      [],
      `${tally.contradictions.length} verifies contradicted what had been acknowledged`,
    );
    assert.deepEqual(
      cluster.unexplainedFaults(FAULT_GRACE_MS).slice(0, 5),
      [],
      'a request failed on a process that was not down',
    );
    assert.ok(cluster.faults.length > 0, 'no request was cut off by the kill: the crash was not exercised under load');
    assert.ok(
      enough(tally),
      `too little load to mean anything in ${MAX_LOAD_MS} ms: ${JSON.stringify(tally.payments)}`,
    );

    // Charges the customers left pending end (the settler asks the sandbox), then their webhooks go out.
    await eventually(
      async () => `the last ${await pendingMobileCharges(database)} pending mobile money charges to end`,
      async () => (await pendingMobileCharges(database)) === 0,
      20_000,
    );
    const deliveriesDue = await waitForDeliveries(database, merchant.id, receiver);
    // Longer than a lease: a copy sent again by mistake would show up meanwhile.
    await sleep(2_000);
    const settled = Date.now();

    // Every acknowledged session verifies on some process, as acknowledged; every create cut off is whole or absent.
    const losses = await verifyEverySession(cluster, merchant.test_secret_key, tally);
    assert.deepEqual(
      losses.slice(0, 10),
      [],
      `${losses.length} of ${tally.sessions.size} acknowledged sessions are lost or wrong`,
    );
    const cutOff = await checkCutOffCreates(cluster, merchant.test_secret_key, tally);
    assert.deepEqual(cutOff.broken, [], 'a create cut off by the kill is either whole or absent');

    // Money: each paid session has exactly one credited payment, no other session has any, the ledger balances.
    const sessions = await creditsBySession(database, merchant.id);
    const doubleCredits = sessions.filter((row) => row.credits > 1);
    const wronglyCredited = sessions.filter(
      (row) => (row.status === 'success') !== (row.credits === 1) || row.credits > 1,
    );
    assert.deepEqual(
      wronglyCredited.slice(0, 10),
      [],
      'a paid session has exactly one credited payment, any other none',
    );
    assert.equal(
      sessions.length,
      tally.sessions.size + cutOff.committed,
      'every session in the database was acknowledged or cut off by the kill',
    );
    assert.deepEqual(await checkLedger(database.db), [], 'the ledger check passes');

    // Webhooks: every event delivered at least once, none ever in flight twice at the same moment.
    const events = await eventsWithDeliveries(database, merchant.id);
    const undelivered = events.filter(
      (row) => row.deliveryId === null || row.status !== 'delivered' || !receiver.delivered.has(row.deliveryId),
    );
    assert.deepEqual(
      undelivered.slice(0, 10),
      [],
      `${undelivered.length} of ${events.length} events were not delivered`,
    );
    const known = new Set(events.map((row) => row.deliveryId));
    assert.deepEqual(
      [...receiver.delivered.keys()].filter((id) => !known.has(id)),
      [],
      'every webhook received belongs to an event',
    );
    assert.equal(receiver.mostInFlightForOneId(), 1, 'no webhook was ever in flight twice at the same moment');
    const duplicates = [...receiver.delivered.values()].reduce((sum, times) => sum + times - 1, 0);
    // What the dead process held was left alone until its lease lapsed, then sent by another:
    // no recorded try within the claim, one after it.
    assert.ok(
      orphaned.length > 0,
      `the killed process held no webhook claim (${heldAtKill} requests were held at the kill): lease takeover not exercised`,
    );
    const attempts = await recordedAttempts(
      database,
      orphaned.map((claim) => claim.id),
    );
    for (const claim of orphaned) {
      const since = (attempts.get(claim.id) ?? []).filter((at) => at > claim.lockedUntil - LEASE_MS);
      assert.ok(
        since.length > 0 && since.every((at) => at >= claim.lockedUntil),
        `delivery ${claim.id}, claimed until ${claim.lockedUntil} by the killed process, has tries recorded at ${since.join(', ') || 'none'}`,
      );
    }

    const figures = {
      processes: PROCESSES,
      workers: WORKERS,
      load_ms: loadEnded - ready,
      killed: { slot: KILLED_SLOT, after_ms: outage.killedAt - ready, down_ms: (outage.backAt ?? 0) - outage.killedAt },
      creates_sent: tally.createsSent,
      creates_acknowledged: tally.sessions.size,
      creates_cut_off: tally.cutOffCreates.size,
      creates_cut_off_committed: cutOff.committed,
      payment_flows: tally.payments.flows,
      payments_acknowledged: tally.payments.acknowledgedSuccess,
      payments_declined: tally.payments.declined,
      payment_flows_cut_off: tally.payments.faulted,
      twin_payment_pairs: tally.payments.twinPairs,
      sessions_paid: sessions.filter((row) => row.status === 'success').length,
      late_successes_not_credited: sessions.reduce((sum, row) => sum + Math.max(0, row.successfulCharges - 1), 0),
      verifies: tally.verifies.sent,
      faults: cluster.faults.length,
      faults_by_kind: countBy(cluster.faults.map((fault) => `${fault.what}: ${fault.cause}`)),
      losses: losses.length,
      double_credits: doubleCredits.length,
      events: events.length,
      deliveries_due_after_load: deliveriesDue,
      webhooks_in_flight_at_kill: heldAtKill,
      webhook_claims_orphaned_by_kill: orphaned.length,
      webhook_requests: receiver.requests(),
      webhooks_refused_on_purpose: receiver.refusedOnPurpose(),
      webhooks_delivered: receiver.delivered.size,
      webhooks_delivered_twice: duplicates,
      max_in_flight_per_webhook: receiver.mostInFlightForOneId(),
      drain_ms: settled - loadEnded,
      total_ms: Date.now() - started,
    };
    reportScenario('scale-out', figures);
    t.diagnostic(JSON.stringify(figures));

    assert.deepEqual(await cluster.stopAll(), Array(PROCESSES).fill(0), 'SIGTERM stops every process cleanly');
  },
);

/** Verifies every acknowledged session, spread over the processes; what is wrong with each. */
async function verifyEverySession(cluster: Cluster, key: string, tally: Tally): Promise<string[]> {
  const problems: string[] = [];
  await inBatches([...tally.sessions.values()], CHECK_BATCH, async (session) => {
    const slot = cluster.next();
    const verified = await verify(cluster, slot, key, session.txRef, tally);
    const problem =
      verified === FAULT
        ? `${session.txRef}: verify on process ${slot.index} failed at the connection`
        : problemWith(session, verified);
    if (problem) problems.push(problem);
  });
  return problems;
}

/** A create cut off by the kill may have committed or not, but never halfway or with other figures. */
async function checkCutOffCreates(
  cluster: Cluster,
  key: string,
  tally: Tally,
): Promise<{ committed: number; broken: string[] }> {
  let committed = 0;
  const broken: string[] = [];
  await inBatches([...tally.cutOffCreates], CHECK_BATCH, async ([txRef, amount]) => {
    const verified = await verify(cluster, cluster.next(), key, txRef, tally);
    if (verified === FAULT) broken.push(`${txRef}: verify failed at the connection`);
    else if (!verified.found && verified.answer.startsWith('404')) return;
    else if (verified.found && verified.status === 'pending' && verified.amount === amount) committed += 1;
    else broken.push(`${txRef}: ${JSON.stringify(verified)}`);
  });
  return { committed, broken };
}

async function pendingMobileCharges(database: Database): Promise<number> {
  const row = await database.db
    .selectFrom('charges')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .where('next_action', '=', 'approve')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Waits until no delivery of the merchant is pending and the receiver has accepted each; returns
 * how many were still pending when it started (those the kill or the refusals held back).
 */
async function waitForDeliveries(database: Database, merchantId: string, receiver: WatchingReceiver): Promise<number> {
  const outstanding = async () => {
    const rows = await database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status'])
      .where('merchant_id', '=', merchantId)
      .execute();
    return rows.filter((row) => row.status === 'pending' || !receiver.delivered.has(row.id)).length;
  };
  const atStart = await outstanding();
  await eventually(
    async () => `the last ${await outstanding()} outstanding webhook deliveries`,
    async () => (await outstanding()) === 0,
    45_000,
  );
  return atStart;
}

/**
 * Pending deliveries still claimed under a lease taken before `killedAt` (a claim expires at most
 * LEASE_MS after it was taken): once the live processes have recorded theirs, the dead one's.
 */
async function claimsOrphanedBy(
  database: Database,
  killedAt: number,
): Promise<Array<{ id: string; lockedUntil: number }>> {
  const rows = await database.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'locked_until'])
    .where('status', '=', 'pending')
    .where('locked_until', '>', Date.now())
    .where('locked_until', '<=', killedAt + LEASE_MS)
    .execute();
  return rows.map((row) => ({ id: row.id, lockedUntil: Number(row.locked_until) }));
}

/** delivery id → when each of its recorded attempts started. */
async function recordedAttempts(database: Database, ids: string[]): Promise<Map<string, number[]>> {
  const attempts = new Map<string, number[]>();
  if (ids.length === 0) return attempts;
  const rows = await database.db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempted_at'])
    .where('delivery_id', 'in', ids)
    .execute();
  for (const row of rows)
    attempts.set(row.delivery_id, [...(attempts.get(row.delivery_id) ?? []), Number(row.attempted_at)]);
  return attempts;
}

interface SessionCredits {
  txRef: string;
  status: string;
  /** Collection postings for any charge of the session. */
  credits: number;
  successfulCharges: number;
}

async function creditsBySession(database: Database, merchantId: string): Promise<SessionCredits[]> {
  const rows = await database.db
    .selectFrom('checkout_sessions as s')
    .leftJoin('charges as c', 'c.session_id', 's.id')
    .leftJoin('ledger_transactions as l', (join) =>
      join.onRef('l.reference', '=', 'c.id').on('l.kind', '=', 'collection'),
    )
    .select([
      's.tx_ref',
      's.status',
      sql<number>`count(l.id)`.as('credits'),
      sql<number>`count(distinct case when c.status = 'success' then c.id end)`.as('successful_charges'),
    ])
    .where('s.merchant_id', '=', merchantId)
    .groupBy(['s.tx_ref', 's.status'])
    .execute();
  return rows.map((row) => ({
    txRef: row.tx_ref,
    status: row.status,
    credits: Number(row.credits),
    successfulCharges: Number(row.successful_charges),
  }));
}

async function eventsWithDeliveries(
  database: Database,
  merchantId: string,
): Promise<Array<{ eventId: string; deliveryId: string | null; status: string | null }>> {
  const rows = await database.db
    .selectFrom('events as e')
    .leftJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select(['e.id as eventId', 'd.id as deliveryId', 'd.status'])
    .where('e.merchant_id', '=', merchantId)
    .execute();
  return rows;
}

/**
 * Holds the endpoint's requests until one held there came from process `pid` (known by its
 * sockets' ports), and returns that stall, still holding. A stall that catches none of its
 * requests within STALL_LIMIT_MS lets them go and another is tried: deterministic, where waiting
 * for a count of held requests left it to chance whether the doomed process was among the senders.
 */
async function stallUntilHeldBy(
  receiver: WatchingReceiver,
  pid: number,
): Promise<ReturnType<WatchingReceiver['stall']>> {
  for (let attempt = 1; attempt <= STALL_TRIES; attempt++) {
    const stall = receiver.stall();
    const caught = await eventually(
      `a request from process ${pid} held`,
      async () => stall.heldFrom(localPortsOf(pid)) > 0,
      STALL_LIMIT_MS,
    ).then(
      () => true,
      () => false,
    );
    if (caught) return stall;
    stall.release();
    await sleep(200);
  }
  throw new Error(
    `process ${pid} sent no webhook while ${STALL_TRIES} stalls of ${STALL_LIMIT_MS} ms held its receiver`,
  );
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
