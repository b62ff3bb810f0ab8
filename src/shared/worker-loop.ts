import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/** The longest pause between rounds while the database is unavailable. */
const MAX_BACKOFF_MS = 5_000;

export interface WorkerLoop {
  /** Stops scheduling and waits for the round in progress, so nothing is left half-claimed. */
  stop(): Promise<void>;
  /** True until stopped: what readiness reports. */
  running(): boolean;
}

/**
 * Runs `round` every `intervalMs` (never two at once) until stopped. A round that fails is
 * logged and the loop goes on: background work must outlive a database outage. While the
 * database is unavailable the pause doubles (up to MAX_BACKOFF_MS, or the interval if longer)
 * and only the first failure and the recovery are logged, not one line per round.
 */
export function startWorkerLoop(name: string, intervalMs: number, round: (isStopping: () => boolean) => Promise<void>, log: FastifyBaseLogger | null): WorkerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
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

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round(isStopping).then(succeeded, failed).finally(schedule);
    }, delayMs);
  };
  schedule();

  return {
    running: () => !stopped,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
