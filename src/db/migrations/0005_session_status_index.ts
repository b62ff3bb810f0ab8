import type { Kysely } from 'kysely';

/** Metrics count sessions by status at every scrape: an index keeps that cheap as sessions pile up. */
export const sessionStatusIndexMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('checkout_sessions_status').on('checkout_sessions').column('status').execute();
  },
};
