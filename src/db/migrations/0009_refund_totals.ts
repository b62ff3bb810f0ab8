import { sql, type Kysely } from 'kysely';

/**
 * Merchant refunds: each charge keeps how much of it has been given back (`refunded_minor`), the
 * guard that keeps refunds from ever exceeding what was paid. Refunds already given (a success a
 * checkout session could not count, refunded whole) are counted in it; so are refunds under way.
 */
export const refundTotalsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('charges')
      .addColumn('refunded_minor', 'bigint', (c) =>
        c
          .notNull()
          .defaultTo(0)
          .check(sql`refunded_minor >= 0 and refunded_minor <= amount_minor`),
      )
      .execute();
    await sql`
      update charges set refunded_minor = (
        select coalesce(sum(refunds.amount_minor), 0) from refunds
        where refunds.charge_ref = charges.id and (refunds.status <> 'failed' or refunds.source = 'uncounted')
      )
      where exists (select 1 from refunds where refunds.charge_ref = charges.id)
    `.execute(db);
    await db.schema
      .createIndex('refunds_merchant')
      .on('refunds')
      .columns(['merchant_id', 'mode', 'created_at'])
      .execute();
  },
};
