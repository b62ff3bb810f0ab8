// How soon a merchant's server hears of a payment: direct mobile money charges created at a
// constant rate, each settled by the sandbox at once, and the time from the commit that made each
// payment successful (its event's `created_at`, written in that transaction) to the merchant's
// receiver having the webhook. The gateway runs with the shipped WORKER_INTERVAL, so a webhook
// that waited for the workers' poll shows as such.
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { openBenchDb } from './bench-db.ts';
import type { Cleanup } from './cleanup.ts';
import { startGateway } from './gateway.ts';
import type { DbKind } from './options.ts';
import { chargeBody } from './requests.ts';
import { percentiles } from './soak/percentiles.ts';
import { Receiver } from './webhooks.ts';

export interface PaymentToWebhookResult {
  /** Payments offered per second, and made per second (fewer when the gateway fell behind). */
  rate: number;
  achievedRate: number;
  /** Payments made in the measured window (each has one webhook), and of their webhooks those that arrived. */
  payments: number;
  received: number;
  lost: number;
  duplicated: number;
  /** From the successful commit to the webhook's arrival, in ms. */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The shipped poll interval: what the wake-ups are measured against. */
const SHIPPED_WORKER_INTERVAL = '250ms';
const CONNECTIONS = 20;
/** Seconds at the rate before the measured window: the gateway's code and connections warm up. */
const WARM_UP_SECONDS = 2;
/** Gives up on the rest when no new webhook has arrived for this long. */
const STALL_LIMIT_MS = 10_000;
/** Waits this long after the last one arrives, to catch a delivery sent twice. */
const DUPLICATE_GRACE_MS = 1_000;

export async function measurePaymentToWebhook(
  repoRoot: string,
  db: DbKind,
  startedAt: Date,
  cleanup: Cleanup,
  rate: number,
  durationSeconds: number,
): Promise<PaymentToWebhookResult> {
  const gateway = await startGateway(repoRoot, db, startedAt, cleanup, {
    WORKER_INTERVAL: SHIPPED_WORKER_INTERVAL,
    SANDBOX_MOBILE_DELAY: '0',
  });
  const receiver = new Receiver(true);
  await gateway.cli(['merchant', 'update', gateway.merchantId, '--webhook-url', await receiver.listen(cleanup)]);
  const bench = await openBenchDb(gateway.databaseUrl);
  cleanup.add(() => bench.close());

  const load = (prefix: string, seconds: number) => {
    let made = 0;
    return autocannon({
      url: gateway.url,
      connections: CONNECTIONS,
      overallRate: rate,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/mobile-money/payments/initialize',
          headers: { authorization: `Bearer ${gateway.secretKey}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: chargeBody(`${prefix}-${made++}`) }),
        },
      ],
    });
  };
  const warmUp = await load('warm-up', WARM_UP_SECONDS);
  const measured = await load('measured', durationSeconds);
  if (warmUp.errors + measured.errors + warmUp.non2xx + measured.non2xx > 0)
    throw new Error('payment to webhook: some payments were refused; the row would time the rest');
  // Requests still in flight when the load stopped were made too: what is expected is what the
  // database holds once every charge has ended.
  receiver.lastNewAt = performance.now();
  const allArrived = async () =>
    (await bench.pendingCharges()) === 0 &&
    receiver.received.size >= (await bench.deliveryEvents(gateway.merchantId)).length;
  while (!(await allArrived()) && performance.now() - receiver.lastNewAt < STALL_LIMIT_MS) await sleep(100);
  await sleep(DUPLICATE_GRACE_MS);

  const deliveries = (await bench.deliveryEvents(gateway.merchantId)).filter((delivery) =>
    delivery.chargeId?.startsWith('measured-'),
  );
  const latencies = deliveries.flatMap(({ deliveryId, eventCreatedAt }) => {
    const arrivedAt = receiver.firstArrivedAt.get(deliveryId);
    return arrivedAt === undefined ? [] : [arrivedAt - eventCreatedAt];
  });
  const { count: received, ...figures } = percentiles(latencies);
  return {
    rate,
    achievedRate: deliveries.length / durationSeconds,
    payments: deliveries.length,
    received,
    lost: deliveries.length - received,
    duplicated: receiver.duplicates(),
    ...figures,
  };
}

/** One line of what was measured, for the report. */
export function describePaymentToWebhook(result: PaymentToWebhookResult): string {
  const { rate, achievedRate, payments, received, lost, duplicated, p50Ms, p90Ms, p99Ms, maxMs } = result;
  return `payment to webhook at ${rate} payments/s offered (${achievedRate.toFixed(0)}/s made): ${payments} payments, ${received} webhooks (${lost} lost, ${duplicated} twice); from commit to arrival p50 ${p50Ms} ms, p90 ${p90Ms} ms, p99 ${p99Ms} ms, max ${maxMs} ms`;
}
