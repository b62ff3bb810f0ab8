import type { PaymentDeps } from '../core/payment-deps.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import type { LogEntry } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { completeCharge, refreshCharge } from '../core/charge-completion.ts';
import { findChargeWithLogsByChargeId, type Charge } from '../core/charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';

export type TestOutcome = 'success' | 'pending' | 'failed';

const SANDBOX_OUTCOMES: Record<Exclude<TestOutcome, 'pending'>, Outcome> = {
  success: { status: 'success', transId: null },
  failed: { status: 'failed', reason: 'Settled as failed in test mode (transaction_status=failed).' },
};

/** The charge a merchant names, through `find`; a charge_id we could never have stored is simply not found (a NUL in it would even fail the query on PostgreSQL). */
async function chargeOf<C extends Charge>(
  find: (db: PaymentDeps['db'], owner: Principal, chargeId: string) => Promise<C | undefined>,
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
): Promise<C> {
  const charge = REFERENCE_PATTERN.test(chargeId) ? await find(deps.db, owner, chargeId) : undefined;
  if (!charge) throw new ApiError('transactionNotFound');
  return charge;
}

/**
 * Verification (docs/integrate/api-reference.md#verification-and-details). With a test key, `transaction_status` settles a pending charge to
 * that outcome exactly as a real completion would (ledger, event, webhook); a final charge is
 * left as it is. A live key may not use it.
 */
export async function verifyCharge(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
  { transactionStatus, now }: { transactionStatus?: TestOutcome | undefined; now: number },
): Promise<{ charge: Charge; logs: LogEntry[] }> {
  if (transactionStatus !== undefined && owner.mode === 'live') {
    throw ApiError.field('transaction_status', 'The transaction status can only be used with a test key.');
  }
  const found = await chargeOf(findChargeWithLogsByChargeId, deps, owner, chargeId);
  const settled =
    transactionStatus === undefined || transactionStatus === 'pending' || found.status !== 'pending'
      ? null
      : SANDBOX_OUTCOMES[transactionStatus];
  const charge = settled
    ? ((await completeCharge(deps, found, settled, now)) ?? found)
    : await refreshCharge(deps, found, now);
  if (!settled && charge === found) return { charge, logs: found.logs };
  // Settling it logged the outcome (or someone else settled it first): read it again, logs and all.
  const current = (await findChargeWithLogsByChargeId(deps.db, owner, chargeId)) ?? { ...charge, logs: found.logs };
  return { charge: current, logs: current.logs };
}

/**
 * Details (docs/integrate/api-reference.md#verification-and-details) show what verification shows, read the same way (the record with its
 * logs in one statement, refreshed from the provider when due), without settling anything.
 */
export function chargeDetails(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
  now: number,
): Promise<{ charge: Charge; logs: LogEntry[] }> {
  return verifyCharge(deps, owner, chargeId, { now });
}
