import { setTimeout as sleep } from 'node:timers/promises';
import { startReceiver } from '../helpers/receiver.ts';

/** How often a webhook's first try is refused with 503, so retries are part of the run: one in this many. */
const REFUSE_FIRST_TRY_OF_EVERY = 5;

export interface WatchingReceiver {
  url: string;
  /** Every request received. */
  requests(): number;
  /** webhook-id → how many times it was answered 2xx (delivered). */
  readonly delivered: Map<string, number>;
  /** First tries answered 503 on purpose. */
  refusedOnPurpose(): number;
  /** The most copies of one webhook-id ever in flight at the same moment. */
  mostInFlightForOneId(): number;
  /**
   * Holds every request that arrives from now on until `release`, so that the senders are caught
   * mid-delivery (a crash then leaves their claims to lapse); `held` says how many wait, and
   * `heldFrom` which of them came from one of the given ports (a sender process's sockets).
   */
  stall(): { held(): number; heldFrom(ports: Set<number>): number; release(): void };
  close(): Promise<void>;
}

/**
 * The merchant's webhook endpoint: holds every request open for 20–50 ms (and longer while
 * stalled), so that two copies of
 * one webhook sent side by side (by two processes, or by a process and the one that took over
 * its lease too early) would overlap and be counted; refuses the first try of one webhook in
 * five with 503, so retries run across processes too.
 */
export async function startWatchingReceiver(): Promise<WatchingReceiver> {
  const inFlight = new Map<string, number>();
  const tries = new Map<string, number>();
  const delivered = new Map<string, number>();
  let mostInFlight = 0;
  let refused = 0;
  let requests = 0;
  let stalled: { gate: Promise<void>; held: number; ports: number[] } | null = null;
  const receiver = await startReceiver(async (_n, request) => {
    requests += 1;
    const id = String(request.headers['webhook-id']);
    const now = (inFlight.get(id) ?? 0) + 1;
    inFlight.set(id, now);
    mostInFlight = Math.max(mostInFlight, now);
    const tryNumber = (tries.get(id) ?? 0) + 1;
    tries.set(id, tryNumber);
    if (stalled) {
      stalled.held += 1;
      stalled.ports.push(request.fromPort);
      await stalled.gate;
    }
    await sleep(20 + Math.random() * 30);
    inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
    if (tryNumber === 1 && tries.size % REFUSE_FIRST_TRY_OF_EVERY === 0) {
      refused += 1;
      return { status: 503, body: 'down for maintenance' };
    }
    delivered.set(id, (delivered.get(id) ?? 0) + 1);
    return { status: 200, body: 'ok' };
  });
  return {
    url: receiver.url,
    requests: () => requests,
    delivered,
    refusedOnPurpose: () => refused,
    mostInFlightForOneId: () => mostInFlight,
    stall() {
      let release!: () => void;
      const current = { gate: new Promise<void>((resolve) => (release = resolve)), held: 0, ports: [] as number[] };
      stalled = current;
      return {
        held: () => current.held,
        heldFrom: (ports) => current.ports.filter((port) => ports.has(port)).length,
        release() {
          if (stalled === current) stalled = null;
          release();
        },
      };
    },
    close: () => receiver.close(),
  };
}
