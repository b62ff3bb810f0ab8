import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cleanup } from '../cleanup.ts';
import type { SoakLog } from './soak-log.ts';

export interface WebhookCounts {
  /** Payments whose attempt the gateway took: each owes the merchant one `checkout.payment`. */
  expected: number;
  /** Expected payments with at least one webhook. */
  received: number;
  lost: number;
  /** Extra copies for an expected payment, a retried delivery or a second event alike. */
  duplicated: number;
  /** For a payment that expected none, not saying success, or not readable. */
  unexpected: number;
}

interface Payload {
  tx_ref?: unknown;
  status?: unknown;
  /** When the gateway recorded the outcome (the event's time, to the millisecond). */
  updated_at?: unknown;
}

/**
 * The bench merchant's webhook endpoint: answers 200 at once and counts the `checkout.payment`
 * webhooks by tx_ref, timing each first one from the completion it reports to its arrival.
 */
export class WebhookReceiver {
  private readonly expected = new Set<string>();
  private readonly copies = new Map<string, number>();
  private readonly waiting = new Map<string, () => void>();
  /** Webhooks that are not a successful `checkout.payment` the bench can read. */
  private strays = 0;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200).end();
      this.arrived(Buffer.concat(chunks).toString('utf8'));
    });
  });

  constructor(private readonly log: SoakLog) {}

  async listen(cleanup: Cleanup): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    cleanup.add(() => new Promise((resolve) => this.server.close(() => resolve())));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  expect(txRef: string): void {
    this.expected.add(txRef);
  }

  /** Resolves true once the payment's webhook has come (at once if it already has), false after `timeoutMs`. */
  arrival(txRef: string, timeoutMs: number): Promise<boolean> {
    if (this.copies.has(txRef)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(txRef);
        resolve(false);
      }, timeoutMs);
      // A payment still waiting when the bench ends must not keep it alive.
      timer.unref();
      this.waiting.set(txRef, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  counts(): WebhookCounts {
    let received = 0;
    let duplicated = 0;
    let unexpected = this.strays;
    for (const [txRef, copies] of this.copies) {
      if (!this.expected.has(txRef)) {
        unexpected += copies;
        continue;
      }
      received++;
      duplicated += copies - 1;
    }
    return { expected: this.expected.size, received, lost: this.expected.size - received, duplicated, unexpected };
  }

  private arrived(body: string): void {
    const payload = parse(body);
    const txRef = payload?.tx_ref;
    if (typeof txRef !== 'string' || payload?.status !== 'success' || typeof payload.updated_at !== 'string') {
      this.strays++;
      return;
    }
    const copies = (this.copies.get(txRef) ?? 0) + 1;
    this.copies.set(txRef, copies);
    // Only the first copy for a payment that owes one is timed: a stranger's is counted, not measured.
    if (copies > 1 || !this.expected.has(txRef)) return;
    const sinceCompletion = Date.now() - Date.parse(payload.updated_at);
    this.log.record('webhook', performance.now() - sinceCompletion, sinceCompletion);
    this.waiting.get(txRef)?.();
    this.waiting.delete(txRef);
  }
}

function parse(body: string): Payload | null {
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null ? (value as Payload) : null;
  } catch {
    return null;
  }
}
