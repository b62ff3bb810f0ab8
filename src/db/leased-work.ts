import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { Database } from './database.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

/** Outgoing work that workers claim under a lease and retry on a schedule. */
export type LeasedTable = 'emails' | 'webhook_deliveries';

/**
 * Pending rows due by `now` whose lease has lapsed by `leaseLapsedBy` (or that none holds). The
 * two are the same instant; they are two parameters because a `prepared` query binds each once.
 */
function dueRows(db: QueryCreator<DB>, table: LeasedTable, now: number, leaseLapsedBy: number) {
  return db
    .selectFrom(table)
    .select('id')
    .where('status', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', leaseLapsedBy)]));
}

// One prepared query per table: `prepared` keeps one SQL text per query it makes.
const aDueRow: Record<LeasedTable, (db: Kysely<DB>, now: number, leaseLapsedBy: number) => Promise<unknown[]>> = {
  emails: prepared((db, now: number, leaseLapsedBy: number) =>
    dueRows(db, 'emails', now, leaseLapsedBy).limit(sql.lit(1)),
  ),
  webhook_deliveries: prepared((db, now: number, leaseLapsedBy: number) =>
    dueRows(db, 'webhook_deliveries', now, leaseLapsedBy).limit(sql.lit(1)),
  ),
};

/** Most rounds find nothing: asking first, with no transaction, makes an idle round one read. */
export async function anyDue(db: Kysely<DB>, table: LeasedTable, now: number): Promise<boolean> {
  return (await aDueRow[table](db, now, now)).length > 0;
}

/**
 * PostgreSQL: the ids of up to `limit` due rows, locked FOR UPDATE SKIP LOCKED as `claimDue`
 * takes them, as a subquery for a statement that claims them itself (an UPDATE … WHERE id IN).
 */
export function dueToClaim(db: QueryCreator<DB>, table: LeasedTable, now: number, limit: number) {
  return dueRows(db, table, now, now).orderBy('next_attempt_at').limit(limit).forUpdate().skipLocked();
}

/** What claims rows: the database, its dialect, and its transactions (grouped with concurrent writes on SQLite). */
export type Claimer = Pick<Database, 'db' | 'dialect' | 'transact'>;

/**
 * Claims up to `limit` due rows for one worker until `now + leaseMs` and reads them with `read`,
 * in the claiming transaction. On PostgreSQL, FOR UPDATE SKIP LOCKED lets several processes
 * claim side by side without taking the same row; the lease then keeps the row theirs while they
 * send, and lapses if they crash.
 */
export async function claimDue<R>(
  { db, dialect, transact }: Claimer,
  table: LeasedTable,
  work: { now: number; leaseMs: number; limit: number },
  read: (trx: Kysely<DB>, ids: string[]) => Promise<R[]>,
): Promise<R[]> {
  const { now, leaseMs, limit } = work;
  if (!(await anyDue(db, table, now))) return [];
  return transact(async (trx) => {
    let due = dueRows(trx, table, now, now).orderBy('next_attempt_at').limit(limit);
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    const claimed = (await due.execute()).map((row) => row.id);
    if (claimed.length === 0) return [];
    await trx
      .updateTable(table)
      .set({ locked_until: now + leaseMs })
      .where('id', 'in', claimed)
      .execute();
    return read(trx, claimed);
  });
}
