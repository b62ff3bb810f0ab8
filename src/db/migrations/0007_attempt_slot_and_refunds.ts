import type { Kysely } from 'kysely';

/**
 * The one attempt a checkout session has in flight (its `pending_charge_id`), and refunds: money
 * given back for a successful charge, starting with a success the session could not count.
 */
export const attemptSlotAndRefundsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('checkout_sessions').addColumn('pending_charge_id', 'text').execute();

    await db.schema
      .createTable('refunds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('refund_id', 'text', (c) => c.notNull())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('charge_ref', 'text', (c) => c.notNull().references('charges.id'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('amount_minor', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('provider_state', 'text')
      .addColumn('check_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('refunds_refund_id', ['merchant_id', 'mode', 'refund_id'])
      .execute();
    await db.schema.createIndex('refunds_charge').on('refunds').column('charge_ref').execute();
    await db.schema.createIndex('refunds_due').on('refunds').columns(['status', 'check_at']).execute();
  },
};
