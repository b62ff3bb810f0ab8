import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { createPostgresWorkTriggers } from '../work-notices.ts';

/**
 * The event log a merchant reads (`GET /events`, latest first in its key's mode) and the event
 * stream's poller reads (every merchant's events since a moment, in the order they were made):
 * an index for each. On PostgreSQL, recording an event now notifies `lipira_work` as work for the
 * stream's poller does (src/db/work-notices.ts), so listeners hear of an event any process commits.
 */
export function eventLogMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('events_by_owner')
        .on('events')
        .columns(['merchant_id', 'mode', 'created_at', 'id'])
        .execute();
      await db.schema.createIndex('events_by_time').on('events').columns(['created_at', 'id']).execute();
      if (dialect === 'postgres') await createPostgresWorkTriggers(db);
    },
  };
}
