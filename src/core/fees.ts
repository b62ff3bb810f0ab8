import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { findMerchant, type Merchant } from '../merchants/merchant-repository.ts';
import { feeMinor } from '../shared/money.ts';
import type { Charge } from './charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';

/** The merchant's fee on a successful collection, at its rate when the money came in; none on a failure. */
export async function collectionFee(trx: Kysely<DB>, charge: Charge, outcome: Outcome): Promise<number> {
  return (await collectionFeeAndMerchant(trx, charge, outcome)).fee;
}

/**
 * The same, with the merchant row it was read from (undefined on a failure, which reads none), so
 * that the rest of the transaction (the event's webhook and receipts) need not read it again.
 */
export async function collectionFeeAndMerchant(
  trx: Kysely<DB>,
  charge: Charge,
  outcome: Outcome,
): Promise<{ fee: number; merchant: Merchant | undefined }> {
  if (outcome.status !== 'success') return { fee: 0, merchant: undefined };
  const merchant = await findMerchant(trx, charge.merchant_id);
  return { fee: merchant ? feeMinor(charge.amount_minor, merchant.fee_bps) : 0, merchant };
}
