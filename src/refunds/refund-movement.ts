import type { Movement } from '../ledger/ledger-service.ts';
import type { Refund } from './refund-repository.ts';

/** What a refund moves in the ledger: its amount, and the fee's share it gives back (`feeMinor`). */
export const movementOf = (
  refund: Pick<Refund, 'merchant_id' | 'mode' | 'currency' | 'amount_minor' | 'fee_returned_minor'>,
  reference: string,
): Movement => ({
  merchantId: refund.merchant_id,
  mode: refund.mode,
  currency: refund.currency,
  amountMinor: refund.amount_minor,
  feeMinor: refund.fee_returned_minor,
  reference,
});
