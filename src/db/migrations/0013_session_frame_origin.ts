import type { Kysely } from 'kysely';

/**
 * The origin of the page that created a session through the inline popup (`POST /popup/payment`
 * with a public key, from a browser): the one origin allowed to show the session's pages in a
 * frame, and the one their result is posted to. Null for every other session, whose pages may
 * not be framed at all.
 */
export const sessionFrameOriginMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('checkout_sessions').addColumn('frame_origin', 'text').execute();
  },
};
