import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from 'lipira';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/database.ts';
import { checkLedger } from '../../src/ledger/ledger-service.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { call, freePort } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startServe } from '../helpers/serve-process.ts';
import { reportScenario } from './report.ts';

/**
 * Issue 8, receiver outage: the merchant's webhook endpoint is down for the first retry windows
 * of a batch of events, first not listening at all (connection refused), then answering 503.
 * When it comes back every event is delivered, once, and each delivery's recorded attempts (read
 * through the delivery API) show the refusals, then the 503s, then one success, spaced as the
 * compressed schedule says.
 */

const PAYMENTS = 120;
/** One payment in this many is declined: a failed attempt is an event too. */
const DECLINED_EVERY = 5;
const CONCURRENCY = 8;
/** Tries refused at the connection before the endpoint starts listening (then it answers 503 once per event). */
const REFUSED_TRIES = 2;
/** Delays between tries: compressed, and long enough that the endpoint can be brought back within it. */
const SCHEDULE_MS = [500, 1_000, 1_000, 1_000, 1_000, 2_000, 2_000, 2_000, 2_000, 2_000];
const JITTER = 0.1;

const SETTINGS = {
  SMTP_URL: '',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
  WEBHOOK_TIMEOUT: '2s',
  SANDBOX_MOBILE_DELAY: '50ms',
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
  RATE_LIMIT_ADDRESS_BURST: '1000000',
};

for (const kind of DATABASE_KINDS) {
  describe(`a webhook endpoint that is down, then comes back, on ${kind}`, () => {
    test(
      `${PAYMENTS} events: refused, then 503, then each delivered once, attempts as scheduled`,
      { timeout: 120_000 },
      async () => {
        const started = Date.now();
        const steps: Array<() => Promise<unknown>> = [];
        try {
          const testDb = freshDatabase(kind);
          steps.push(() => testDb.drop());
          const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
          steps.push(async () => fs.rmSync(outbox, { recursive: true, force: true }));
          const env = { ...SETTINGS, DATABASE_URL: testDb.url, OUTBOX_DIR: outbox };
          // The merchant's URL names a port nothing listens on yet: the endpoint is down.
          const endpointPort = await freePort();
          const endpoint = `http://127.0.0.1:${endpointPort}/hooks`;

          assert.equal((await lipira(['migrate'], env)).code, 0);
          const created = await lipira(
            [
              'merchant',
              'create',
              '--name',
              'Outage Shop',
              '--email',
              'owner@outage.example',
              '--webhook-url',
              endpoint,
              '--json',
            ],
            env,
          );
          assert.equal(created.code, 0, created.stderr);
          const merchant = JSON.parse(created.stdout) as MerchantCredentials;
          const database = await openMigratedDatabase(testDb.url);
          steps.push(() => database.close());

          // The events are made by a process that runs no workers, so that the whole batch is
          // queued when the sending process starts: every event then meets the same windows of
          // the outage.
          const maker = await startServe({ ...env, WORKERS: 'off' });
          steps.push(() => maker.dispose());
          const paid = await makePayments(maker.url, merchant.test_secret_key);
          assert.equal(await maker.stop(), 0);
          const events = await database.db
            .selectFrom('events')
            .select('id')
            .where('merchant_id', '=', merchant.id)
            .execute();
          assert.equal(events.length, PAYMENTS, 'each payment and each declined attempt made one event');

          const sender = await startServe({ ...env, WORKER_INTERVAL: '50ms' });
          steps.push(() => sender.dispose());
          const sendingFrom = Date.now();
          const deliveryIds = new Set(
            (await database.db.selectFrom('webhook_deliveries').select('id').execute()).map((row) => row.id),
          );

          // Down, not listening: wait until every delivery has been refused REFUSED_TRIES times.
          await eventually(
            'every delivery refused at the connection',
            async () => (await minimumTries(database, deliveryIds)) >= REFUSED_TRIES,
            30_000,
          );
          // Down, answering 503 until every event has met one; from then on, up.
          const endpointLog = new Map<string, number[]>();
          let up = false;
          const receiver: Receiver = await startReceiver(
            (_n, request) => {
              const id = String(request.headers['webhook-id']);
              const status = up ? 200 : 503;
              endpointLog.set(id, [...(endpointLog.get(id) ?? []), status]);
              if (!up && [...deliveryIds].every((known) => endpointLog.has(known))) up = true;
              return status === 200 ? { status, body: 'ok' } : { status, body: 'down for maintenance' };
            },
            '127.0.0.1',
            endpointPort,
          );
          steps.push(() => receiver.close());
          const listeningFrom = Date.now();

          const delivered = () => [...endpointLog.values()].filter((statuses) => statuses.includes(200)).length;
          await eventually(
            () => `every webhook delivered (${delivered()} so far)`,
            async () => delivered() === deliveryIds.size,
            40_000,
          );
          const deliveredBy = Date.now();
          // Two retry windows more for a second copy to show up.
          await sleep(2 * SCHEDULE_MS[0]!);

          // What the endpoint saw: for each webhook, 503s and then exactly one 200, signed by the merchant's secret.
          assert.deepEqual(
            [...endpointLog.keys()].sort(),
            [...deliveryIds].sort(),
            'every delivery reached the endpoint',
          );
          for (const [id, statuses] of endpointLog) {
            assert.ok(
              statuses.length >= 2 && statuses.at(-1) === 200 && statuses.slice(0, -1).every((s) => s === 503),
              `${id} was answered ${statuses.join(', ')}`,
            );
          }
          for (const request of receiver.received)
            verifyWebhook(request.body, request.headers, merchant.webhook_secret);

          // What the delivery API recorded: refusals, then 503s, then one success, as scheduled.
          const recorded = await recordedDeliveries(sender.url, merchant.test_secret_key);
          assert.equal(recorded.length, PAYMENTS, 'the API lists every delivery');
          const problems = recorded.flatMap((delivery) =>
            scheduleProblems(delivery, endpointLog.get(delivery.id) ?? [], listeningFrom),
          );
          assert.deepEqual(
            problems.slice(0, 10),
            [],
            `${problems.length} deliveries do not show the outage as it happened`,
          );
          assert.deepEqual(await checkLedger(database.db), [], 'the ledger check passes');
          assert.equal(await sender.stop(), 0);

          const attempts = recorded.map((delivery) => delivery.attempts.length);
          const figures = {
            payments: PAYMENTS,
            paid: paid.success,
            declined: paid.declined,
            events: events.length,
            schedule: SETTINGS.WEBHOOK_RETRY_SCHEDULE,
            refused_attempts: recorded.reduce(
              (sum, delivery) => sum + delivery.attempts.filter((a) => a.status_code === null).length,
              0,
            ),
            answered_503: recorded.reduce(
              (sum, delivery) => sum + delivery.attempts.filter((a) => a.status_code === 503).length,
              0,
            ),
            delivered: delivered(),
            delivered_twice: [...endpointLog.values()].filter(
              (statuses) => statuses.filter((s) => s === 200).length > 1,
            ).length,
            attempts_per_event: { min: Math.min(...attempts), max: Math.max(...attempts) },
            refused_for_ms: listeningFrom - sendingFrom,
            all_delivered_after_ms: deliveredBy - sendingFrom,
            total_ms: Date.now() - started,
          };
          reportScenario(`receiver-outage-${kind}`, figures);
        } finally {
          for (const step of steps.reverse()) await step().catch(() => undefined);
        }
      },
    );
  });
}

/** Pays PAYMENTS sessions through the hosted page, one in DECLINED_EVERY with the declining test number. */
async function makePayments(base: string, key: string): Promise<{ success: number; declined: number }> {
  const outcomes = { success: 0, declined: 0 };
  let next = 0;
  const worker = async () => {
    while (next < PAYMENTS) {
      const declines = ++next % DECLINED_EVERY === 0;
      const payment = await payByMobileMoney(base, key, declines ? '0990000001' : '0990000000');
      const succeeded = payment.landedAt !== null && new URL(payment.landedAt).searchParams.get('status') === 'success';
      assert.equal(succeeded, !declines, `${payment.txRef} landed at ${payment.landedAt}`);
      outcomes[declines ? 'declined' : 'success'] += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

/** The fewest recorded tries among `ids`. */
async function minimumTries(database: Database, ids: Set<string>): Promise<number> {
  const rows = await database.db.selectFrom('webhook_deliveries').select(['id', 'attempts']).execute();
  const tries = rows.filter((row) => ids.has(row.id)).map((row) => row.attempts);
  return tries.length === ids.size ? Math.min(...tries) : 0;
}

interface RecordedDelivery {
  id: string;
  status: string;
  attempt_count: number;
  attempts: Array<{ attempted_at: string; status_code: number | null; error: string | null }>;
}

/** Every delivery with its attempts, as the merchant reads them: the list, page by page, then each one. */
async function recordedDeliveries(base: string, key: string): Promise<RecordedDelivery[]> {
  const ids: string[] = [];
  for (let page = 1; ; page += 1) {
    const list = await call(base, `/webhooks/deliveries?per_page=100&page=${page}`, { key });
    assert.equal(list.status, 200, list.text);
    ids.push(...(list.body.data.data as Array<{ id: string }>).map((row) => row.id));
    if (!list.body.data.next_page_url) break;
  }
  const details: RecordedDelivery[] = [];
  for (const id of ids) {
    const detail = await call(base, `/webhooks/deliveries/${id}`, { key });
    assert.equal(detail.status, 200, detail.text);
    details.push(detail.body.data as RecordedDelivery);
  }
  return details;
}

/**
 * How a delivery's record departs from the outage as it happened: tries refused at the
 * connection (at least REFUSED_TRIES, all before the endpoint listened), then 503s matching what
 * the endpoint answered, then one success, last; each retry no sooner than the schedule's delay
 * (less the jitter) after the try before.
 */
function scheduleProblems(delivery: RecordedDelivery, answered: number[], listeningFrom: number): string[] {
  const problems: string[] = [];
  const say = (what: string) => problems.push(`${delivery.id}: ${what}`);
  const tries = delivery.attempts;
  const refused = tries.filter((a) => a.status_code === null);
  const statuses = tries.filter((a) => a.status_code !== null).map((a) => a.status_code);
  if (delivery.status !== 'delivered' || delivery.attempt_count !== tries.length)
    say(`is ${delivery.status} after ${delivery.attempt_count} tries, ${tries.length} listed`);
  if (refused.length < REFUSED_TRIES || !tries.slice(0, refused.length).every((a) => a.status_code === null))
    say(`refused tries are not first: ${tries.map((a) => a.status_code).join(', ')}`);
  if (refused.some((a) => !/ECONNREFUSED/.test(a.error ?? '') || Date.parse(a.attempted_at) > listeningFrom))
    say('a refused try was not a refused connection before the endpoint listened');
  if (statuses.join(',') !== answered.join(','))
    say(`recorded ${statuses.join(', ')} but the endpoint answered ${answered.join(', ')}`);
  if (tries.length > SCHEDULE_MS.length + 1) say(`${tries.length} tries, more than the schedule allows`);
  for (let i = 1; i < tries.length; i += 1) {
    const gap = Date.parse(tries[i]!.attempted_at) - Date.parse(tries[i - 1]!.attempted_at);
    const least = Math.floor(SCHEDULE_MS[i - 1]! * (1 - JITTER)) - 1;
    if (gap < least)
      say(`try ${i + 1} came ${gap} ms after try ${i}, sooner than the schedule's ${SCHEDULE_MS[i - 1]} ms`);
  }
  return problems;
}
