import type { Kysely } from 'kysely';

/** Charges (every payment attempt and, later, direct charges and payouts) and the event outbox. */
export const paymentsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('checkout_sessions')
      .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('checkout_sessions').addColumn('paid_charge_id', 'text').execute();

    await db.schema
      .createTable('charges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('charge_id', 'text', (c) => c.notNull())
      .addColumn('ref_id', 'text', (c) => c.notNull().unique())
      .addColumn('session_id', 'text', (c) => c.references('checkout_sessions.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('operator', 'text')
      .addColumn('mobile', 'text')
      .addColumn('card_brand', 'text')
      .addColumn('card_number', 'text')
      .addColumn('card_expiry', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('next_action', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('provider_state', 'text')
      .addColumn('check_at', 'bigint')
      .addColumn('amount_minor', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('fee_minor', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('first_name', 'text')
      .addColumn('last_name', 'text')
      .addColumn('email', 'text')
      .addColumn('trans_id', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('charges_charge_id', ['merchant_id', 'mode', 'charge_id'])
      .execute();
    await db.schema.createIndex('charges_session').on('charges').column('session_id').execute();
    await db.schema.createIndex('charges_due').on('charges').columns(['status', 'check_at']).execute();

    await db.schema
      .createTable('events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('events_subject').on('events').columns(['subject_id', 'created_at']).execute();
  },
};
