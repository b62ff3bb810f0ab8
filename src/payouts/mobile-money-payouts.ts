import type { PaymentDeps } from '../core/payment-deps.ts';
import { reservePayout } from '../ledger/ledger-service.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { findCharge, recordStarted, type Charge } from '../core/charge-repository.ts';
import {
  existingFor,
  hashDirectRequest,
  insertDirectRecord,
  refuseOtherThanKwacha,
  walletOf,
  type DirectRequest,
} from '../core/direct-records.ts';
import { operatorByRef } from '../core/operators.ts';
import type { Outcome } from '../connectors/provider.ts';
import { completePayoutCharge } from './payout-completion.ts';
import {
  movementOf,
  PAYOUT_RECOVERY_MS,
  payoutFeeMinor,
  refusedBeyondBalance,
  refuseChosenOutcomeWhenLive,
} from './payout-reservation.ts';

export interface PayoutRequest extends DirectRequest {
  /** Sandbox only: how the test payout ends (`successful` by default). */
  transaction_status?: 'successful' | 'failed' | undefined;
}

/**
 * A payout to a wallet (docs/integrate/api-reference.md#payouts-to-wallets): the amount plus the fee is reserved from the main balance
 * in the transaction that records it (refused, with no record, when the balance cannot cover
 * it), then the provider sends it and the outcome settles the reservation.
 */
export async function initializePayout(deps: PaymentDeps, owner: Principal, request: PayoutRequest): Promise<Charge> {
  const now = deps.clock.now();
  refuseChosenOutcomeWhenLive(owner, request.transaction_status);
  refuseOtherThanKwacha(request.currency, 'Mobile money payouts are paid in MWK only.');
  const hash = hashDirectRequest('payout', request);
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return existing;
  if (!operatorByRef(request.mobile_money_operator_ref_id)?.supports_withdrawals) {
    throw ApiError.field('mobile_money_operator_ref_id', 'The selected operator does not support payouts.');
  }
  const wallet = walletOf(request);
  const fee = payoutFeeMinor(deps, request.amount * 100);
  const inserted = await refusedBeyondBalance(() =>
    insertDirectRecord(
      deps,
      // check_at: should this process die between reserving and sending, the settler asks the
      // provider later, so the reservation cannot stay stuck.
      {
        owner,
        request,
        kind: 'payout',
        type: 'API Payout',
        wallet,
        hash,
        feeMinor: fee,
        nextAction: null,
        providerState: null,
        checkAt: now + PAYOUT_RECOVERY_MS,
      },
      now,
      (trx, charge) => reservePayout(trx, movementOf(charge), now),
    ),
  );
  // A concurrent retry that got there first sends it; this request answers with its record.
  const payout = inserted.charge;
  if (!inserted.created) return payout;
  const sent = await deps.providerFor(owner.mode).payout({
    reference: payout.id,
    mobile: wallet,
    amountMinor: payout.amount_minor,
    currency: payout.currency,
    requestedOutcome: request.transaction_status ?? 'successful',
  });
  if (sent.status === 'pending') {
    // The operator has not said how it went (a live operator's ambiguous answer): the settler asks.
    const recorded = await recordStarted(
      deps.db,
      payout.id,
      { nextAction: null, providerState: sent.providerState, checkAt: sent.checkAt },
      deps.clock.now(),
    );
    return recorded ?? (await findCharge(deps.db, payout.id)) ?? payout;
  }
  const outcome: Outcome = sent.status === 'refused' ? { status: 'failed', reason: sent.reason } : sent;
  return (await completePayoutCharge(deps, payout, outcome, deps.clock.now())) ?? payout;
}
