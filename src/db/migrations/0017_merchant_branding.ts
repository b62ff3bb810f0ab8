import type { Kysely } from 'kysely';

/**
 * A merchant's branding, set from the dashboard's settings: the logo and colour the hosted checkout
 * page and receipts use when a session brings no customization of its own. Null until set.
 */
export const merchantBrandingMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('merchants').addColumn('logo_url', 'text').execute();
    await db.schema.alterTable('merchants').addColumn('brand_color', 'text').execute();
  },
};
