import { InsufficientFunds, type Movement } from '../ledger/ledger-service.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Charge } from '../core/charge-repository.ts';
import { ApiError } from '../shared/errors.ts';
import { feeMinor } from '../shared/money.ts';

/**
 * When the settler asks the provider about a payout recorded but never answered for: only a
 * process dying between reserving the money and sending the payout leaves one that long, and its
 * reservation must not stay stuck.
 */
export const PAYOUT_RECOVERY_MS = 60_000;

/** A payout's fee: the gateway's PAYOUT_FEE_PERCENT of its amount, as every payout and the dashboard's confirmation count it. */
export const payoutFeeMinor = (deps: { payoutFeeBasisPoints: number }, amountMinor: number): number =>
  feeMinor(amountMinor, deps.payoutFeeBasisPoints);

/** What a payout moves in the ledger: its amount and its fee, from the merchant's main balance. */
export const movementOf = (payout: Charge): Movement => ({
  merchantId: payout.merchant_id,
  mode: payout.mode,
  currency: payout.currency,
  amountMinor: payout.amount_minor,
  feeMinor: payout.fee_minor,
  reference: payout.id,
});

/** `transaction_status` picks how a sandbox payout ends: a live key cannot choose. */
export function refuseChosenOutcomeWhenLive(owner: Principal, transactionStatus: string | undefined): void {
  if (transactionStatus !== undefined && owner.mode === 'live') {
    throw ApiError.field('transaction_status', 'The transaction status can only be chosen with a test key.');
  }
}

/**
 * Runs `record`, which reserves the payout's amount and fee from the main balance in the
 * transaction that records it: when the balance cannot cover them, that transaction rolls back
 * (no record) and the merchant gets a 400 naming the amount.
 */
export async function refusedBeyondBalance<T>(record: () => Promise<T>): Promise<T> {
  try {
    return await record();
  } catch (error) {
    if (error instanceof InsufficientFunds)
      throw ApiError.field('amount', 'The amount and its fee exceed the available balance.');
    throw error;
  }
}
