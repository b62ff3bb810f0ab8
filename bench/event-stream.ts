// What the event stream costs and how fast it delivers, in two phases on one gateway. First, as
// issue 32 asks: LISTENERS idle listeners (another merchant's, which makes no payment) and one
// listener of the paying merchant, as `lipira listen` is; the gateway's memory before and after
// they connect, then payments at a constant rate (each settled by the sandbox at once, so each
// makes one `api.charge.payment` event in the gateway's own process) and the time from each
// event's `created_at` (written in the transaction that made the payment successful) to its
// arrival at that listener. Then the fan-out: LISTENERS listeners of the paying merchant, every
// one receiving every event, timed the same way (reported: 25,000 copies a second in all, parsed
// by this one process beside the gateway).
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { Cleanup } from './cleanup.ts';
import { openBenchDb } from './bench-db.ts';
import { createMerchant, startGateway } from './gateway.ts';
import type { DbKind } from './options.ts';
import { rssMegabytes } from './proc-stats.ts';
import { chargeBody } from './requests.ts';
import { percentiles, type Percentiles } from './soak/percentiles.ts';

export const EVENT_STREAM_LISTENERS = 500;
export const EVENT_STREAM_RATE = 50;
/** Time for the gateway to settle after the listeners connect, before its memory is read. */
const SETTLE_MS = 2_000;
/** Waits this long after the load for the last events to reach every listener. */
const DRAIN_MS = 2_000;

/** Events made while one phase was measured, and the listeners' copies of them expected and missing. */
export interface Delivered {
  listeners: number;
  events: number;
  expected: number;
  missing: number;
  latency: Percentiles;
}

export interface EventStreamResult {
  idleListeners: number;
  rate: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** The one listener of the paying merchant, beside the idle ones. */
  cli: Delivered;
  /** Every listener the paying merchant's. */
  fanOut: Delivered;
}

/** One listener: when each event id first reached it. */
function listen(url: string, key: string, cleanup: Cleanup, arrivals: Array<[createdAt: number, at: number]>) {
  return new Promise<void>((resolve, reject) => {
    const request = http.get(
      `${url}/events/stream`,
      { headers: { authorization: `Bearer ${key}` }, agent: false },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`the stream answered ${response.statusCode}`));
        response.setEncoding('utf8');
        let buffer = '';
        // The event's time from its cursor (`id: <created_at>-evt_…`), without parsing the JSON:
        // 500 listeners parse 25,000 messages a second in this one process beside the gateway.
        response.on('data', (chunk: string) => {
          const at = Date.now();
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const id = /^id: (\d+)-/m.exec(buffer.slice(0, end))?.[1];
            if (id !== undefined) arrivals.push([Number(id), at]);
            buffer = buffer.slice(end + 2);
          }
        });
        resolve();
      },
    );
    request.on('error', reject);
    cleanup.add(async () => void request.destroy());
  });
}

export async function measureEventStream(
  repoRoot: string,
  db: DbKind,
  startedAt: Date,
  cleanup: Cleanup,
  durationSeconds: number,
): Promise<EventStreamResult> {
  const gateway = await startGateway(repoRoot, db, startedAt, cleanup, { SANDBOX_MOBILE_DELAY: '0' });
  const idleMerchant = await createMerchant(gateway.cli, 'Idle', 'idle@example.com');
  // A warm gateway: its code compiled and its connections open, as the listeners will find it.
  await autocannon({ url: gateway.url, connections: 5, amount: 200, requests: [paymentRequest(gateway, 'warm')] });
  await sleep(SETTLE_MS);
  const rssBeforeMb = rssMegabytes(gateway.pid);
  await connect(gateway.url, idleMerchant.secretKey, cleanup, EVENT_STREAM_LISTENERS);
  const [cliArrivals] = await connect(gateway.url, gateway.secretKey, cleanup, 1);
  await sleep(SETTLE_MS);
  const rssAfterMb = rssMegabytes(gateway.pid);
  const cli = await deliveredDuring(gateway, [cliArrivals!], durationSeconds, cleanup);
  const fanOutArrivals = [
    cliArrivals!,
    ...(await connect(gateway.url, gateway.secretKey, cleanup, EVENT_STREAM_LISTENERS - 1)),
  ];
  await sleep(SETTLE_MS);
  const fanOut = await deliveredDuring(gateway, fanOutArrivals, durationSeconds, cleanup);
  return { idleListeners: EVENT_STREAM_LISTENERS, rate: EVENT_STREAM_RATE, rssBeforeMb, rssAfterMb, cli, fanOut };
}

/** `count` listeners with `key`, fifty connecting at a time: each one's arrivals. */
async function connect(
  url: string,
  key: string,
  cleanup: Cleanup,
  count: number,
): Promise<Array<Array<[number, number]>>> {
  const perListener = Array.from({ length: count }, () => [] as Array<[number, number]>);
  for (let i = 0; i < count; i += 50)
    await Promise.all(perListener.slice(i, i + 50).map((arrivals) => listen(url, key, cleanup, arrivals)));
  return perListener;
}

/** Payments at EVENT_STREAM_RATE for `durationSeconds`, and how soon their events reached each of `listeners`. */
async function deliveredDuring(
  gateway: Awaited<ReturnType<typeof startGateway>>,
  listeners: Array<Array<[number, number]>>,
  durationSeconds: number,
  cleanup: Cleanup,
): Promise<Delivered> {
  const loadStartedAt = Date.now();
  const load = await autocannon({
    url: gateway.url,
    connections: 10,
    overallRate: EVENT_STREAM_RATE,
    duration: durationSeconds,
    requests: [paymentRequest(gateway, `measured-${loadStartedAt}`)],
  });
  if (load.errors + load.non2xx > 0) throw new Error('event stream: some payments were refused');
  // Payments still in flight when the load stopped settle, and their events go out, after it.
  const bench = await openBenchDb(gateway.databaseUrl);
  cleanup.add(() => bench.close());
  while ((await bench.pendingCharges()) > 0) await sleep(100);
  await sleep(DRAIN_MS);
  const made = await eventsSince(gateway, loadStartedAt);
  const latencies = listeners.flatMap((arrivals) =>
    arrivals.filter(([createdAt]) => createdAt >= loadStartedAt).map(([createdAt, at]) => at - createdAt),
  );
  return {
    listeners: listeners.length,
    events: made,
    expected: made * listeners.length,
    missing: made * listeners.length - latencies.length,
    latency: percentiles(latencies),
  };
}

/** The merchant's events made since `since`, as the gateway's own list counts them. */
async function eventsSince(gateway: { url: string; secretKey: string }, since: number): Promise<number> {
  const from = encodeURIComponent(new Date(since).toISOString());
  const response = await fetch(`${gateway.url}/events?from=${from}&per_page=1`, {
    headers: { authorization: `Bearer ${gateway.secretKey}` },
  });
  return ((await response.json()) as { data: { total: number } }).data.total;
}

function paymentRequest(gateway: { secretKey: string }, prefix: string): autocannon.Request {
  let made = 0;
  return {
    method: 'POST',
    path: '/mobile-money/payments/initialize',
    headers: { authorization: `Bearer ${gateway.secretKey}`, 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: chargeBody(`${prefix}-${made++}-${Date.now()}`) }),
  };
}

/** Two lines of what was measured, for the report. */
export function describeEventStream(result: EventStreamResult): string {
  const { idleListeners, rate, rssBeforeMb, rssAfterMb, cli, fanOut } = result;
  const delivered = ({ events, expected, missing, latency }: Delivered) =>
    `${events} events at ${rate}/s, ${expected - missing} of ${expected} copies received; event to listener p50 ${latency.p50Ms} ms, p90 ${latency.p90Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms`;
  return [
    `event stream: ${idleListeners} idle listeners took the gateway from ${rssBeforeMb.toFixed(1)} MB to ${rssAfterMb.toFixed(1)} MB (${(((rssAfterMb - rssBeforeMb) * 1024) / idleListeners).toFixed(0)} kB each); beside them, one listener of the paying merchant: ${delivered(cli)}`,
    `event stream fan-out: ${fanOut.listeners} listeners of the paying merchant: ${delivered(fanOut)}`,
  ].join('\n');
}
