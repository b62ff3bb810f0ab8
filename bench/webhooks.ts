import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchDb } from './bench-db.ts';
import type { Cleanup } from './cleanup.ts';
import type { Gateway } from './gateway.ts';
import { paymentEvent, type SeededCheckout } from './rows.ts';

export interface WebhookResult {
  events: number;
  /** From queuing the events to the arrival of the last one, or to giving up on those lost. */
  seconds: number;
  /** Distinct deliveries per second over `seconds`. */
  deliveriesPerSecond: number;
  /** Queued but never received. */
  lost: number;
  /** Received more than once (counting every extra copy). */
  duplicated: number;
  /** Received with a webhook-id the bench did not queue: from some other event. */
  unexpected: number;
}

const POLL_MS = 20;
/** Gives up when nothing new has arrived for this long: the rest is not coming. */
const STALL_LIMIT_MS = 10_000;
/** Waits this long after the last one arrives, to catch a delivery sent twice. */
const DUPLICATE_GRACE_MS = 1_000;

/**
 * A merchant's webhook endpoint at its fastest: 200 at once, counting each `webhook-id` and
 * noting when each first arrived. Told which ids to expect, it counts any other as unexpected;
 * told none (`expectAny`), every id is one it waits for.
 */
export class Receiver {
  readonly received = new Map<string, number>();
  /** Epoch milliseconds of each id's first arrival (the gateway's clock is this machine's). */
  readonly firstArrivedAt = new Map<string, number>();
  unexpected = 0;
  /** When the last new id arrived, or when the wait for them began. */
  lastNewAt = 0;
  private readonly expected = new Set<string>();
  private readonly server = http.createServer((request, response) => {
    this.count(request.headers['webhook-id']);
    request.resume();
    response.writeHead(200).end();
  });

  constructor(private readonly expectAny = false) {}

  async listen(cleanup: Cleanup): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    cleanup.add(() => new Promise((resolve) => this.server.close(() => resolve())));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  expect(ids: string[]): void {
    for (const id of ids) this.expected.add(id);
    this.lastNewAt = performance.now();
  }

  private count(id: string | string[] | undefined): void {
    if (typeof id !== 'string' || !(this.expectAny || this.expected.has(id))) {
      this.unexpected++;
      return;
    }
    const seen = this.received.get(id) ?? 0;
    this.received.set(id, seen + 1);
    if (seen > 0) return;
    this.lastNewAt = performance.now();
    this.firstArrivedAt.set(id, Date.now());
  }

  /** Copies received beyond the first, over every id. */
  duplicates(): number {
    let copies = 0;
    for (const n of this.received.values()) copies += n - 1;
    return copies;
  }
}

/**
 * Queues `count` payment events for the bench merchant straight into the database, as state
 * changes would, and times the gateway's webhook worker delivering them to a loopback receiver.
 * The merchant gets the receiver's URL through the CLI first, as an operator would set it.
 */
export async function measureWebhookDelivery(
  gateway: Gateway,
  db: BenchDb,
  checkouts: SeededCheckout[],
  count: number,
  cleanup: Cleanup,
): Promise<WebhookResult> {
  const receiver = new Receiver();
  const url = await receiver.listen(cleanup);
  await gateway.cli(['merchant', 'update', gateway.merchantId, '--webhook-url', url]);

  const now = Date.now();
  const queued = Array.from({ length: count }, (_, i) =>
    paymentEvent(gateway.merchantId, checkouts[i % checkouts.length]!, url, now),
  );
  receiver.expect(queued.map((q) => q.delivery.id));
  const started = performance.now();
  await db.queueEvents(
    queued.map((q) => q.event),
    queued.map((q) => q.delivery),
  );

  while (receiver.received.size < count && performance.now() - receiver.lastNewAt < STALL_LIMIT_MS)
    await sleep(POLL_MS);
  const lost = count - receiver.received.size;
  const seconds = ((lost === 0 ? receiver.lastNewAt : performance.now()) - started) / 1000;
  await sleep(DUPLICATE_GRACE_MS);

  return {
    events: count,
    seconds,
    deliveriesPerSecond: receiver.received.size / seconds,
    lost,
    duplicated: receiver.duplicates(),
    unexpected: receiver.unexpected,
  };
}
