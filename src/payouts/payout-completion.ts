import type { PaymentDeps } from '../core/payment-deps.ts';
import { completePayout, releasePayout } from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import { emitChargeOutcome } from '../core/charge-events.ts';
import { finalizeCharge, findCharge, type Charge } from '../core/charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';
import { recipientDetails } from './bank-payout-views.ts';
import { movementOf } from './payout-reservation.ts';
import { findRecipient } from './recipient-repository.ts';

/**
 * Records how a payout ended, in one transaction: the payout, its reservation paid out (success)
 * or released back to the main balance (failure), its log and its `api.payout` event, which for
 * a payout through the banks list names the recipient as PayChangu's does.
 */
export async function completePayoutCharge(
  deps: PaymentDeps,
  payout: Charge,
  outcome: Outcome,
  now: number,
): Promise<Charge | null> {
  return deps.transact(async (trx) => {
    const final = await finalizeCharge(trx, payout.id, outcome, payout.fee_minor, now);
    if (!final) return (await findCharge(trx, payout.id)) ?? null;
    if (outcome.status === 'success') await completePayout(trx, movementOf(final), now);
    else await releasePayout(trx, movementOf(final), now);
    await addLog(
      trx,
      final.id,
      outcome.status === 'success' ? 'Payout completed' : `Payout failed: ${outcome.reason}`,
      now,
    );
    const recipient = await findRecipient(trx, final.id);
    await emitChargeOutcome(
      trx,
      final,
      now,
      deps.timeZone,
      recipient ? { recipient_account_details: recipientDetails(recipient) } : {},
    );
    return final;
  });
}
