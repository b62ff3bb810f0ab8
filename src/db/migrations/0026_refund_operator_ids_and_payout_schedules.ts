import type { Kysely } from 'kysely';

/**
 * A refund's own operator id (`trans_id`): a refund of part of an Airtel Money payment goes out
 * as a disbursement with an id of its own, which the merchant reconciles by. And a merchant's
 * automatic payouts, one schedule per merchant and mode, with the recipient it pays (as a payout
 * through the banks list names one) and when it runs next, which workers claim runs by.
 */
export const refundOperatorIdsAndPayoutSchedulesMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('refunds').addColumn('trans_id', 'text').execute();
    await db.schema
      .createTable('payout_schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('weekday', 'integer')
      .addColumn('minimum_minor', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('bank_uuid', 'text', (c) => c.notNull())
      .addColumn('bank_name', 'text', (c) => c.notNull())
      .addColumn('account_name', 'text', (c) => c.notNull())
      .addColumn('account_number', 'text', (c) => c.notNull())
      .addColumn('next_run_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint')
      .addColumn('last_run_at', 'bigint')
      .addColumn('last_payout_ref', 'text')
      .addColumn('last_result', 'text')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('payout_schedules_owner', ['merchant_id', 'mode'])
      .execute();
    await db.schema.createIndex('payout_schedules_due').on('payout_schedules').column('next_run_at').execute();
  },
};
