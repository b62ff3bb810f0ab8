import type { Kysely } from 'kysely';

/**
 * Getting back into a dashboard account. A password link says what it was sent for: `set` (a new
 * account's first password, valid for a day) or `reset` (a forgotten one, asked for from the
 * sign-in page, valid for 30 minutes); links made before this are the first kind. Two-factor
 * recovery codes are kept as SHA-256 hashes, each usable once in place of an authenticator's code.
 */
export const accountRecoveryMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('password_links')
      .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('set'))
      .execute();
    await db.schema
      .createTable('recovery_codes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('recovery_codes_user').on('recovery_codes').column('user_id').execute();
  },
};
