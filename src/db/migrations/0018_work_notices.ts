import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { createPostgresWorkTriggers } from '../work-notices.ts';

/**
 * PostgreSQL tells every process when work for its workers is committed (LISTEN/NOTIFY), so they
 * need not poll for it; SQLite's equivalent lives on the connection (temporary triggers), so it
 * has nothing to migrate.
 */
export function workNoticesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await createPostgresWorkTriggers(db);
    },
  };
}
