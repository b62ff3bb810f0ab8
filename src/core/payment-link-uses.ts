import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * Counts a payment toward the link that opened its session, in the transaction that pays the
 * session, unless the link is used up: a single-use link once paid, a capped one at its cap. The
 * compare-and-set is the last guard of a limited link (its page refuses a new session while the
 * open ones hold every use left): a success it cannot count is refunded like any other the
 * session could not count. False when the link was used up.
 */
export async function countLinkPayment(
  trx: Kysely<DB>,
  linkId: string,
  amountMinor: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('payment_links')
    .set({
      payments_count: sql`payments_count + 1`,
      amount_collected_minor: sql`amount_collected_minor + ${amountMinor}`,
      updated_at: now,
    })
    .where('id', '=', linkId)
    .where((eb) => eb.or([eb('reusable', '=', 1), eb('payments_count', '=', 0)]))
    .where((eb) => eb.or([eb('max_payments', 'is', null), eb('payments_count', '<', eb.ref('max_payments'))]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
