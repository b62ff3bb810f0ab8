import type { FastifyBaseLogger } from 'fastify';
import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import { findDueRefunds } from '../refunds/refund-repository.ts';
import { advanceRefund } from '../refunds/refund-service.ts';
import { sideBySide } from '../shared/side-by-side.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { refreshCharge } from './charge-completion.ts';
import { findDueCharges } from './charge-repository.ts';

const BATCH = 100;
/**
 * Charges (and refunds) asked about at once. One after the other, a round's completions queued
 * behind each other's round trips on PostgreSQL (the soak saw payments wait seconds for their
 * turn) and each paid its own commit on SQLite; side by side they share commits there. Each
 * ends once whoever asks, so the settler may ask about several as status polls already do.
 */
const SIDE_BY_SIDE = 10;

/**
 * Asks providers about pending charges whose check time has come (a sandbox mobile money
 * payment after its delay; a live one when the operator should have answered), and moves due
 * refunds on (handing each to its provider once, then asking how it went). Several processes may
 * run it: a charge or refund ends once, whoever asks first.
 */
export function startSettler(deps: PaymentDeps, intervalMs: number, log: FastifyBaseLogger | null): WorkerLoop {
  return startWorkerLoop(
    'settler',
    intervalMs,
    async (isStopping) => {
      await sideBySide(await findDueCharges(deps.db, Date.now(), BATCH), SIDE_BY_SIDE, isStopping, (charge) => refreshCharge(deps, charge));
      if (isStopping()) return;
      await sideBySide(await findDueRefunds(deps.db, Date.now(), BATCH), SIDE_BY_SIDE, isStopping, (refund) => advanceRefund(deps, refund));
    },
    log,
  );
}
