import type { FastifyBaseLogger } from 'fastify';
import { refreshCharge, type PaymentDeps } from '../checkout/checkout-payments.ts';
import { findDueCharges } from './charge-repository.ts';

const BATCH = 100;

export interface Settler {
  stop(): Promise<void>;
}

/**
 * Asks providers about pending charges whose check time has come (a sandbox mobile money
 * payment after its delay; a live one when the operator should have answered). Several
 * processes may run it: a charge ends once, whoever asks first.
 */
export function startSettler(deps: PaymentDeps, intervalMs: number, log: FastifyBaseLogger | null): Settler {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      for (const charge of await findDueCharges(deps.db, Date.now(), BATCH)) {
        if (stopped) return;
        await refreshCharge(deps, charge);
      }
    } catch (error) {
      log?.error({ err: error }, 'settling due charges failed');
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, intervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
