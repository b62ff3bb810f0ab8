import type { Kysely } from 'kysely';

/**
 * A direct card charge's 3-D Secure step (`/3ds/auth?reference=…`): the link's reference, where
 * the customer's browser goes afterwards, how many wrong one-time codes were typed, and until
 * when the link works. Kept beside its charge row, as a payout's recipient is, so that no other
 * charge carries these columns.
 */
export const cardAuthenticationsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('card_authentications')
      .addColumn('charge_ref', 'text', (c) => c.primaryKey().references('charges.id'))
      .addColumn('reference', 'text', (c) => c.notNull().unique())
      .addColumn('redirect_url', 'text', (c) => c.notNull())
      .addColumn('wrong_codes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
