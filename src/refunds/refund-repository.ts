import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB, RefundsTable } from '../db/schema.ts';
import { prepared } from '../db/prepared.ts';
import type { Outcome } from '../payments/provider.ts';

export type Refund = Selectable<RefundsTable>;
type Db = Kysely<DB>;

/**
 * The provider state of a refund being handed to its provider: the request may have reached it
 * even if its answer never reached us (a crash, a timeout), so from here on it is only asked
 * about, never handed over again.
 */
export const HANDING_OVER = 'handing-over';

export async function insertRefund(trx: Db, refund: Insertable<RefundsTable>): Promise<void> {
  await trx.insertInto('refunds').values(refund).execute();
}

const dueRefunds = prepared((db, now: number, limit: number) =>
  db.selectFrom('refunds').selectAll().where('status', '=', sql.lit('pending')).where('check_at', '<=', now).orderBy('check_at').limit(limit),
);

/** Pending refunds to hand to their provider, or to ask about, by now. */
export function findDueRefunds(db: Db, now: number, limit: number): Promise<Refund[]> {
  return dueRefunds(db, now, limit);
}

/**
 * Takes the one right to hand a refund to its provider: true for the single caller that moved it
 * from "not handed over" to HANDING_OVER. `askAgainAt` is when it is asked about, should the
 * caller never record the provider's answer.
 */
export async function claimHandOver(db: Db, id: string, askAgainAt: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ provider_state: HANDING_OVER, check_at: askAgainAt, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('provider_state', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What the provider said when it took the refund: its state, and when to ask about it. */
export async function recordHandedOver(db: Db, id: string, providerState: string, checkAt: number, now: number): Promise<void> {
  await db.updateTable('refunds').set({ provider_state: providerState, check_at: checkAt, updated_at: now }).where('id', '=', id).where('status', '=', 'pending').execute();
}

/** Ends a pending refund with the provider's outcome; only the first caller gets the row back. */
export function finalizeRefund(db: Db, id: string, outcome: Outcome, now: number): Promise<Refund | undefined> {
  return db
    .updateTable('refunds')
    .set({ status: outcome.status, failure_reason: outcome.status === 'failed' ? outcome.reason : null, check_at: null, completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
