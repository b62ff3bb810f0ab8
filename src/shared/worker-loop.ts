import type { FastifyBaseLogger } from 'fastify';

export interface WorkerLoop {
  /** Stops scheduling and waits for the round in progress, so nothing is left half-claimed. */
  stop(): Promise<void>;
  /** True until stopped: what readiness reports. */
  running(): boolean;
}

/**
 * Runs `round` every `intervalMs` (never two at once) until stopped. A round that fails is
 * logged and the loop goes on: background work must outlive a passing database hiccup.
 */
export function startWorkerLoop(name: string, intervalMs: number, round: (isStopping: () => boolean) => Promise<void>, log: FastifyBaseLogger | null): WorkerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const isStopping = () => stopped;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round(isStopping)
        .catch((error: unknown) => log?.error({ err: error, worker: name }, 'worker round failed'))
        .finally(schedule);
    }, intervalMs);
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
