import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import { completePayout, InsufficientFunds, releasePayout, reservePayout, type Movement } from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { feeMinor } from '../shared/money.ts';
import { emitChargeOutcome } from './charge-events.ts';
import { finalizeCharge, findCharge, type Charge } from './charge-repository.ts';
import { existingFor, hashDirectRequest, insertDirectRecord, walletOf, type DirectRequest } from './direct-records.ts';
import { operatorByRef } from './operators.ts';
import type { Outcome } from './provider.ts';

export interface PayoutRequest extends DirectRequest {
  /** Sandbox only: how the test payout ends (`successful` by default). */
  transaction_status?: 'successful' | 'failed' | undefined;
}

const PAYOUT_RECOVERY_MS = 60_000;

const movementOf = (charge: Charge): Movement => ({
  merchantId: charge.merchant_id,
  mode: charge.mode,
  currency: charge.currency,
  amountMinor: charge.amount_minor,
  feeMinor: charge.fee_minor,
  reference: charge.id,
});

/**
 * A payout to a wallet (contract §8): the amount plus the fee is reserved from the main balance
 * in the transaction that records it (refused, with no record, when the balance cannot cover
 * it), then the provider sends it and the outcome settles the reservation.
 */
export async function initializePayout(deps: PaymentDeps, owner: Principal, request: PayoutRequest, now = Date.now()): Promise<Charge> {
  if (request.transaction_status !== undefined && owner.mode === 'live') {
    throw ApiError.field('transaction_status', 'The transaction status can only be chosen with a test key.');
  }
  const hash = hashDirectRequest('payout', request);
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return existing;
  if (!operatorByRef(request.mobile_money_operator_ref_id)?.supports_withdrawals) {
    throw ApiError.field('mobile_money_operator_ref_id', 'The selected operator does not support payouts.');
  }
  const wallet = walletOf(request);
  const fee = feeMinor(request.amount * 100, deps.payoutFeeBasisPoints);
  let inserted: { charge: Charge; created: boolean };
  try {
    inserted = await insertDirectRecord(
      deps.db,
      // check_at: should this process die between reserving and sending, the settler asks the
      // provider later, so the reservation cannot stay stuck.
      { owner, request, kind: 'payout', type: 'API Payout', wallet, hash, feeMinor: fee, nextAction: null, providerState: null, checkAt: now + PAYOUT_RECOVERY_MS },
      now,
      (trx, charge) => reservePayout(trx, movementOf(charge), now),
    );
  } catch (error) {
    if (error instanceof InsufficientFunds) throw ApiError.field('amount', 'The amount and its fee exceed the available balance.');
    throw error;
  }
  // A concurrent retry that got there first sends it; this request answers with its record.
  const payout = inserted.charge;
  if (!inserted.created) return payout;
  const sent = await deps.providerFor(owner.mode).payout({ mobile: wallet, amountMinor: payout.amount_minor, currency: payout.currency, requestedOutcome: request.transaction_status ?? 'successful' });
  const outcome: Outcome = sent.status === 'refused' ? { status: 'failed', reason: sent.message } : sent;
  return (await completePayoutCharge(deps, payout, outcome)) ?? payout;
}

/**
 * Records how a payout ended, in one transaction: the payout, its reservation paid out (success)
 * or released back to the main balance (failure), its log and its `api.payout` event.
 */
export async function completePayoutCharge(deps: PaymentDeps, payout: Charge, outcome: Outcome, now = Date.now()): Promise<Charge | null> {
  return deps.db.transaction().execute(async (trx) => {
    const final = await finalizeCharge(trx, payout.id, outcome, payout.fee_minor, now);
    if (!final) return (await findCharge(trx, payout.id)) ?? null;
    if (outcome.status === 'success') await completePayout(trx, movementOf(final), now);
    else await releasePayout(trx, movementOf(final), now);
    await addLog(trx, final.id, outcome.status === 'success' ? 'Payout completed' : `Payout failed: ${outcome.reason}`, now);
    await emitChargeOutcome(trx, final, now, deps.timeZone);
    return final;
  });
}
