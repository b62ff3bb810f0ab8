import type { Kysely } from 'kysely';

/**
 * A dashboard account's safety: a user can be disabled (refused at sign-in, like a wrong
 * password, until enabled again), a two-factor reset by someone else is remembered until its user
 * next signs in (to be sent to set it up again), and each completed sign-in is kept, with the
 * client's address, a short name of its browser and the SHA-256 of the browser's own long-lived
 * cookie, so that a user sees their recent sign-ins and is told of one from a browser never seen.
 */
export const accountSafetyMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
    await db.schema.alterTable('users').addColumn('two_factor_reset_at', 'bigint').execute();
    await db.schema
      .createTable('sign_ins')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('browser_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_ins_user').on('sign_ins').columns(['user_id', 'created_at']).execute();
  },
};
