import type { Kysely } from 'kysely';

/**
 * Payment links: a merchant's page at `/pay/{slug}` that opens ordinary checkout sessions. Each
 * session a link opens names it (`checkout_sessions.payment_link_id`), so the link's payments are
 * listed and its open sessions counted as holds on a limited link (docs/decisions.md,
 * "A limited payment link is held by its open sessions"). The link's `payments_count` and
 * `amount_collected_minor` are moved by a compare-and-set in the transaction that pays a session.
 */
export const paymentLinksMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('payment_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('amount_minor', 'bigint')
      .addColumn('min_amount_minor', 'bigint')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('reusable', 'integer', (c) => c.notNull())
      .addColumn('max_payments', 'integer')
      .addColumn('expires_at', 'bigint')
      .addColumn('customer_fields', 'text', (c) => c.notNull())
      .addColumn('redirect_url', 'text')
      .addColumn('meta', 'text')
      .addColumn('active', 'integer', (c) => c.notNull())
      .addColumn('payments_count', 'integer', (c) => c.notNull())
      .addColumn('amount_collected_minor', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('payment_links_by_owner')
      .on('payment_links')
      .columns(['merchant_id', 'mode', 'created_at'])
      .execute();
    await db.schema.alterTable('checkout_sessions').addColumn('payment_link_id', 'text').execute();
    await db.schema
      .createIndex('checkout_sessions_by_payment_link')
      .on('checkout_sessions')
      .columns(['payment_link_id', 'status'])
      .where('payment_link_id', 'is not', null)
      .execute();
  },
};
