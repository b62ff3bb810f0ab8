import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { findMerchant } from '../merchants/merchant-repository.ts';
import { feeMinor } from '../shared/money.ts';
import type { Charge } from './charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';

/** The merchant's fee on a successful collection, at its rate when the money came in; none on a failure. */
export async function collectionFee(trx: Kysely<DB>, charge: Charge, outcome: Outcome): Promise<number> {
  if (outcome.status !== 'success') return 0;
  const merchant = await findMerchant(trx, charge.merchant_id);
  return merchant ? feeMinor(charge.amount_minor, merchant.fee_bps) : 0;
}
