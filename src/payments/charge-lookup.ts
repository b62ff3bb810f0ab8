import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import { REFERENCE_PATTERN } from '../checkout/checkout-schemas.ts';
import { listLogs, type LogEntry } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { completeCharge, refreshCharge } from './charge-completion.ts';
import { findChargeByChargeId, type Charge } from './charge-repository.ts';
import type { Outcome } from './provider.ts';

export type TestOutcome = 'success' | 'pending' | 'failed';

const SANDBOX_OUTCOMES: Record<Exclude<TestOutcome, 'pending'>, Outcome> = {
  success: { status: 'success', transId: null },
  failed: { status: 'failed', reason: 'Settled as failed in test mode (transaction_status=failed).' },
};

async function chargeOf(deps: PaymentDeps, owner: Principal, chargeId: string): Promise<Charge> {
  // A charge_id we could never have stored is simply not found (a NUL in it would even fail the query on PostgreSQL).
  if (!REFERENCE_PATTERN.test(chargeId)) throw new ApiError('transactionNotFound');
  const charge = await findChargeByChargeId(deps.db, owner, chargeId);
  if (!charge) throw new ApiError('transactionNotFound');
  return charge;
}

/**
 * Verification (contract §8). With a test key, `transaction_status` settles a pending charge to
 * that outcome exactly as a real completion would (ledger, event, webhook); a final charge is
 * left as it is. A live key may not use it.
 */
export async function verifyCharge(deps: PaymentDeps, owner: Principal, chargeId: string, transactionStatus: TestOutcome | undefined, now = Date.now()): Promise<{ charge: Charge; logs: LogEntry[] }> {
  if (transactionStatus !== undefined && owner.mode === 'live') {
    throw ApiError.field('transaction_status', 'The transaction status can only be used with a test key.');
  }
  const found = await chargeOf(deps, owner, chargeId);
  const settled = transactionStatus === undefined || transactionStatus === 'pending' || found.status !== 'pending' ? null : SANDBOX_OUTCOMES[transactionStatus];
  const charge = settled ? ((await completeCharge(deps, found, settled, now)) ?? found) : await refreshCharge(deps, found, now);
  return { charge, logs: await listLogs(deps.db, charge.id) };
}

export async function chargeDetails(deps: PaymentDeps, owner: Principal, chargeId: string, now = Date.now()): Promise<Charge> {
  return refreshCharge(deps, await chargeOf(deps, owner, chargeId), now);
}
