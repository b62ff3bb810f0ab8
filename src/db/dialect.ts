import { PostgresAdapter, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Whether a handle (the database or one of its transactions) talks to PostgreSQL, for the few statements the two databases write differently. */
export function isPostgres(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
