import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { completeRefund, holdForRefund, type Movement } from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import { findCharge, type Charge } from '../payments/charge-repository.ts';
import type { Outcome, ProviderFor } from '../payments/provider.ts';
import { ids } from '../shared/ids.ts';
import { formatMoneyText } from '../shared/money.ts';
import { claimHandOver, finalizeRefund, insertRefund, recordHandedOver, type Refund } from './refund-repository.ts';

export interface RefundDeps {
  db: Kysely<DB>;
  providerFor: ProviderFor;
}

/** How long a refund handed to its provider waits for the provider's answer before it is asked about. */
const HAND_OVER_RECOVERY_MS = 60_000;

const movementOf = (refund: Pick<Refund, 'merchant_id' | 'mode' | 'currency' | 'amount_minor'>, reference: string): Movement => ({
  merchantId: refund.merchant_id,
  mode: refund.mode,
  currency: refund.currency,
  amountMinor: refund.amount_minor,
  feeMinor: 0,
  reference,
});

/**
 * A checkout attempt that succeeded when its session could no longer count it (the session had
 * ended, or the customer had moved on to another attempt): in the transaction that recorded the
 * success, the money is held for the customer and a refund of all of it is queued. The settler
 * hands it to the provider.
 */
export async function refundUncountedPayment(trx: Kysely<DB>, charge: Charge, reason: string, now: number): Promise<Refund> {
  const refund: Refund = {
    id: ids.refundRow(),
    refund_id: ids.refund(),
    merchant_id: charge.merchant_id,
    mode: charge.mode,
    charge_ref: charge.id,
    source: 'uncounted',
    amount_minor: charge.amount_minor,
    currency: charge.currency,
    status: 'pending',
    reason,
    failure_reason: null,
    provider_state: null,
    check_at: now,
    created_at: now,
    completed_at: null,
    updated_at: now,
  };
  await holdForRefund(trx, movementOf(refund, charge.id), now);
  await insertRefund(trx, refund);
  await addLog(trx, charge.id, `Not counted (${reason}): refund ${refund.refund_id} of ${refund.currency} ${formatMoneyText(refund.amount_minor)} started`, now);
  return refund;
}

/**
 * Moves a due refund on: hands it to its provider if nobody has (once, whichever process gets
 * there first), otherwise asks the provider how it went and records a final answer.
 */
export async function advanceRefund(deps: RefundDeps, refund: Refund, now = Date.now()): Promise<void> {
  const provider = deps.providerFor(refund.mode);
  if (refund.provider_state === null) {
    if (!(await claimHandOver(deps.db, refund.id, now + HAND_OVER_RECOVERY_MS, now))) return;
    const charge = await findCharge(deps.db, refund.charge_ref);
    const started = await provider.refund({ reference: refund.id, transId: charge?.trans_id ?? null, amountMinor: refund.amount_minor, currency: refund.currency });
    if (started.accepted) return recordHandedOver(deps.db, refund.id, started.providerState, started.checkAt, Date.now());
    return finishRefund(deps.db, refund, { status: 'failed', reason: started.message }, Date.now());
  }
  const outcome = await provider.syncRefund(refund, now);
  if (outcome) await finishRefund(deps.db, refund, outcome, now);
}

/**
 * Records a refund's final answer with its ledger movement and log, once. A refund of held money
 * that failed keeps the money held and says so: it is the customer's, and an operator must act.
 */
async function finishRefund(db: Kysely<DB>, refund: Refund, outcome: Outcome, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const final = await finalizeRefund(trx, refund.id, outcome, now);
    if (!final) return;
    if (outcome.status === 'success') {
      await completeRefund(trx, movementOf(final, final.id), now);
      await addLog(trx, final.charge_ref, `Refund ${final.refund_id} completed`, now);
    } else {
      await addLog(trx, final.charge_ref, `Refund ${final.refund_id} failed: ${outcome.reason}; the money stays held for the customer until an operator returns it`, now);
    }
  });
}
