import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's payments list reads a merchant's sessions and direct charges of one mode, newest
 * first, a page at a time, optionally of one status. These indexes hand it those rows in that
 * order, so a page is a read of its 51 rows however many payments the merchant has, never a sort
 * of them all. The charges' are partial, over the direct payments only (no session's attempts, no
 * payouts), and the list's query repeats their condition literally so that both planners use them.
 * The payouts list has its own, over payouts only, for the same reason.
 */
export const dashboardPaymentIndexesMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('checkout_sessions_list')
      .on('checkout_sessions')
      .columns(['merchant_id', 'mode', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('checkout_sessions_list_status')
      .on('checkout_sessions')
      .columns(['merchant_id', 'mode', 'status', 'created_at', 'id'])
      .execute();
    const directPayments = sql<boolean>`session_id is null and kind = 'payment'`;
    await db.schema
      .createIndex('charges_direct_list')
      .on('charges')
      .columns(['merchant_id', 'mode', 'created_at', 'id'])
      .where(directPayments)
      .execute();
    await db.schema
      .createIndex('charges_payout_list')
      .on('charges')
      .columns(['merchant_id', 'mode', 'created_at', 'id'])
      .where(sql<boolean>`kind = 'payout'`)
      .execute();
    await db.schema
      .createIndex('charges_direct_list_status')
      .on('charges')
      .columns(['merchant_id', 'mode', 'status', 'created_at', 'id'])
      .where(directPayments)
      .execute();
  },
};
