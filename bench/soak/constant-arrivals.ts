import { setTimeout as sleep } from 'node:timers/promises';

export interface Arrivals {
  started: number;
  /** The latest the generator started a payment after its time: more than a few ms, and the bench process itself fell behind. */
  maxLagMs: number;
  /** Still going when the drain's limit came. */
  unfinished: number;
}

/** A stretch of the run at one arrival rate. */
export interface Phase {
  rate: number;
  seconds: number;
}

/**
 * Open loop: within a phase, payment `i` starts at the phase's start `+ i / rate`, however the
 * earlier ones are doing, so a slow gateway meets the same offered load instead of slowing it (a
 * closed loop would wait for it). Phases follow one another (one for a plain soak; capacity,
 * twice it, capacity again for the overload soak). Once the last payment has started, waits up to
 * `drainMs` for those still in flight.
 */
export async function offerArrivals(
  t0: number,
  phases: Phase[],
  drainMs: number,
  start: (index: number) => Promise<void>,
): Promise<Arrivals> {
  const due: number[] = [];
  let phaseStart = t0;
  for (const { rate, seconds } of phases) {
    const count = Math.round(rate * seconds);
    for (let index = 0; index < count; index++) due.push(phaseStart + (index * 1000) / rate);
    phaseStart += seconds * 1000;
  }
  const total = due.length;
  const dueAt = (index: number) => due[index]!;
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
