import type { FastifyBaseLogger } from 'fastify';
import type { PaymentDeps } from '../core/payment-deps.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { runDueSchedules } from './payout-schedules.ts';

/**
 * Runs merchants' automatic payouts when they fall due, by the deps' clock. Every process runs
 * it; each run is claimed by one of them, and pays once whichever (see `runDueSchedules`).
 */
export function startPayoutScheduleWorker(
  deps: PaymentDeps,
  intervalMs: number,
  log: FastifyBaseLogger | null,
): WorkerLoop {
  return startWorkerLoop(
    'payout-schedules',
    intervalMs,
    async (isStopping) => {
      const results = await runDueSchedules(deps, deps.clock.now(), isStopping);
      const ran = results.filter((result) => result !== 'not_ours');
      if (ran.length > 0)
        log?.info(
          {
            paid: ran.filter((result) => result === 'paid').length,
            skipped: ran.filter((result) => result === 'skipped').length,
          },
          'ran automatic payouts',
        );
    },
    log,
  );
}
