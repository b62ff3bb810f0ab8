import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/** The longest pause between rounds while the database is unavailable. */
const MAX_BACKOFF_MS = 5_000;

export interface WorkerLoop {
  /** Stops scheduling and waits for the round in progress, so nothing is left half-claimed. */
  stop(): Promise<void>;
  /** True until stopped: what readiness reports. */
  running(): boolean;
  /**
   * Work is due at `atMs` (now when absent): the next round starts then rather than at the end of
   * the interval. A wake during a round starts another as soon as it ends. Ignored while the
   * database is unavailable, where the backoff decides.
   */
  wake(atMs?: number): void;
}

/**
 * Runs `round` every `intervalMs` (never two at once) until stopped, and sooner when woken. A
 * round that fails is logged and the loop goes on: background work must outlive a database
 * outage. While the database is unavailable the pause doubles (up to MAX_BACKOFF_MS, or the
 * interval if longer) and only the first failure and the recovery are logged, not one line per
 * round.
 */
export function startWorkerLoop(
  name: string,
  intervalMs: number,
  round: (isStopping: () => boolean) => Promise<void>,
  log: FastifyBaseLogger | null,
): WorkerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  /** When the scheduled round starts (epoch ms); null while a round runs. */
  let nextRoundAt: number | null = null;
  /** The earliest work a wake during the running round announced. */
  let wokenFor = Infinity;
  let running: Promise<void> = Promise.resolve();
  let delayMs = intervalMs;
  let outage = false;
  const isStopping = () => stopped;

  const succeeded = () => {
    if (outage) log?.info({ worker: name }, 'worker resumed: the database is back');
    outage = false;
    delayMs = intervalMs;
  };
  const failed = (error: unknown) => {
    if (!isDatabaseUnavailable(error)) {
      log?.error({ err: error, worker: name }, 'worker round failed');
      return;
    }
    if (!outage) log?.warn({ err: error, worker: name }, 'worker paused: the database is unavailable');
    outage = true;
    delayMs = Math.min(delayMs * 2, Math.max(MAX_BACKOFF_MS, intervalMs));
  };

  const startRound = () => {
    timer = null;
    // A timer may fire while Date.now() is still short of the time it was set for (the loop's
    // clock is rounded to the millisecond, and the wall clock can step back): a round started
    // then finds the work it was woken for not yet due, and the next would wait a whole interval.
    if (nextRoundAt !== null && Date.now() < nextRoundAt) {
      scheduleAt(nextRoundAt);
      return;
    }
    nextRoundAt = null;
    running = round(isStopping).then(succeeded, failed).finally(scheduleAfterRound);
  };
  const scheduleAt = (at: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    nextRoundAt = at;
    timer = setTimeout(startRound, Math.max(0, at - Date.now()));
  };
  function scheduleAfterRound() {
    const woken = outage ? Infinity : wokenFor;
    wokenFor = Infinity;
    scheduleAt(Math.min(Date.now() + delayMs, woken));
  }
  scheduleAt(Date.now() + delayMs);

  return {
    running: () => !stopped,
    wake(atMs = Date.now()) {
      if (stopped || outage) return;
      if (nextRoundAt === null) wokenFor = Math.min(wokenFor, atMs);
      else if (atMs < nextRoundAt) scheduleAt(atMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
