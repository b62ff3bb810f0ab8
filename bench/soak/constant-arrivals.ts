import { setTimeout as sleep } from 'node:timers/promises';

export interface Arrivals {
  started: number;
  /** The latest the generator started a payment after its time: more than a few ms, and the bench process itself fell behind. */
  maxLagMs: number;
  /** Still going when the drain's limit came. */
  unfinished: number;
}

/**
 * Open loop: payment `i` starts at `t0 + i / rate`, however the earlier ones are doing, so a slow
 * gateway meets the same offered load instead of slowing it (a closed loop would wait for it).
 * Once the last has started, waits up to `drainMs` for those still in flight.
 */
export async function offerConstantArrivals(
  t0: number,
  rate: number,
  seconds: number,
  drainMs: number,
  start: (index: number) => Promise<void>,
): Promise<Arrivals> {
  const total = Math.round(rate * seconds);
  const dueAt = (index: number) => t0 + (index * 1000) / rate;
  const inFlight = new Set<Promise<void>>();
  let maxLagMs = 0;
  // A payment fails by counting its error; one that throws is the bench's own bug, raised once all have stopped.
  let bug: unknown = null;
  for (let next = 0; next < total;) {
    // Every payment whose time has come starts now, even when the timer woke late.
    for (const now = performance.now(); next < total && dueAt(next) <= now; next++) {
      maxLagMs = Math.max(maxLagMs, now - dueAt(next));
      const payment = start(next)
        .catch((error: unknown) => {
          bug ??= error;
        })
        .finally(() => inFlight.delete(payment));
      inFlight.add(payment);
    }
    if (next < total) await sleep(Math.max(0, dueAt(next) - performance.now()));
  }
  const drained = Promise.all(inFlight).then(() => true);
  const limit = sleep(drainMs, false, { ref: false });
  await Promise.race([drained, limit]);
  if (bug !== null) throw bug;
  return { started: total, maxLagMs, unfinished: inFlight.size };
}
