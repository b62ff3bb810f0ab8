import type { Kysely } from 'kysely';

/**
 * Who a payout through `/direct-charge/payouts` goes to: the bank (or wallet) and the account the
 * merchant named, kept beside its charge row. The merchant, mode and time are repeated here so
 * that the merchant's list of these payouts, newest first, is one walk of one index.
 */
export const payoutRecipientsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('payout_recipients')
      .addColumn('charge_ref', 'text', (c) => c.primaryKey().references('charges.id'))
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('bank_uuid', 'text', (c) => c.notNull())
      .addColumn('bank_name', 'text', (c) => c.notNull())
      .addColumn('account_name', 'text', (c) => c.notNull())
      .addColumn('account_number', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('payout_recipients_list')
      .on('payout_recipients')
      .columns(['merchant_id', 'mode', 'created_at', 'charge_ref'])
      .execute();
  },
};
