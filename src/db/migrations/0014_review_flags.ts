import { sql, type Kysely } from 'kysely';

/**
 * Why a live charge (payments and payouts) or refund needs a person: the operator gave no final
 * answer for too long. Null for everything that settled in time. The partial indexes keep the
 * review list a read of the few flagged rows however many charges there are.
 */
export const reviewFlagsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('charges').addColumn('review_reason', 'text').execute();
    await db.schema.alterTable('refunds').addColumn('review_reason', 'text').execute();
    await db.schema
      .createIndex('charges_in_review')
      .on('charges')
      .column('updated_at')
      .where(sql.ref('review_reason'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('refunds_in_review')
      .on('refunds')
      .column('updated_at')
      .where(sql.ref('review_reason'), 'is not', null)
      .execute();
  },
};
