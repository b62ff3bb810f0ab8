import { sql, type Kysely } from 'kysely';

/**
 * What a merchant refund gives back of its payment's fee (REFUND_RETURNS_FEE), and refunds that
 * wait for the merchant's balance: `pending_reason` is set while one waits (nothing reserved for
 * it), `pending_reasons` keeps every reason it waited for, as JSON. The partial index keeps the
 * settler's look at waiting refunds, every round, a read of those few rows however many refunds
 * there are.
 */
export const refundFeeAndWaitsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('refunds')
      .addColumn('fee_returned_minor', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('refunds').addColumn('pending_reason', 'text').execute();
    await db.schema.alterTable('refunds').addColumn('pending_reasons', 'text').execute();
    await db.schema
      .createIndex('refunds_waiting')
      .on('refunds')
      .columns(['merchant_id', 'mode', 'created_at'])
      .where(sql.ref('pending_reason'), 'is not', null)
      .execute();
  },
};
