import type { Kysely } from 'kysely';

/**
 * Invitations to a merchant's team, a record of their own: the team page lists them until they
 * are accepted, cancelled or expire, whether or not the address could take one (an address with
 * an account elsewhere is told by email instead of being sent a link), so that the inviter sees
 * the same either way. The user is made when the link is used.
 */
export const teamInvitationsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('invitations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('invited_by', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('invitations_merchant')
      .on('invitations')
      .columns(['merchant_id', 'created_at'])
      .execute();
  },
};
