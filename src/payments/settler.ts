import type { FastifyBaseLogger } from 'fastify';
import type { PaymentDeps } from '../core/payment-deps.ts';
import { findDueRefunds } from '../refunds/refund-repository.ts';
import { advanceRefund } from '../refunds/refund-service.ts';
import { releaseCoveredRefunds } from '../refunds/refund-waits.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { refreshCharge } from '../core/charge-completion.ts';
import { findDueCharges } from '../core/charge-repository.ts';

const BATCH = 100;

/**
 * Asks providers about pending charges whose check time has come (a sandbox mobile money
 * payment after its delay; a live one when the operator should have answered), reserves the
 * refunds waiting for their balance that it now covers, and moves due refunds on (handing each to
 * its provider once, then asking how it went). Several processes may run it: a charge or refund
 * ends once, and a waiting refund is reserved once, whoever gets there first.
 */
export function startSettler(deps: PaymentDeps, intervalMs: number, log: FastifyBaseLogger | null): WorkerLoop {
  return startWorkerLoop(
    'settler',
    intervalMs,
    async (isStopping) => {
      for (const charge of await findDueCharges(deps.db, deps.clock.now(), BATCH)) {
        if (isStopping()) return;
        await refreshCharge(deps, charge, deps.clock.now());
      }
      if (isStopping()) return;
      await releaseCoveredRefunds(deps, BATCH);
      for (const refund of await findDueRefunds(deps.db, deps.clock.now(), BATCH)) {
        if (isStopping()) return;
        await advanceRefund(deps, refund, deps.clock.now());
      }
    },
    log,
  );
}
