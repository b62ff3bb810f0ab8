import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * How long after a callback made the gateway ask a provider about a charge or refund further
 * callbacks naming it do not ask again, but leave the ask to the settler at the window's end. A
 * callback is only a hint and each ask costs an operator query: without a window, anyone who can
 * post to `/callbacks/airtel` (which takes unsigned callbacks while AIRTEL_CALLBACK_SECRET is
 * unset) made the gateway query Airtel once per post. Five seconds keeps a real callback's payment
 * prompt (it ends within the window at worst) and a flood to a query or two per window.
 */
export const CALLBACK_ASK_WINDOW_MS = 5_000;

/**
 * Takes the right to ask a provider now about a pending charge or refund a callback named: true
 * for the one caller, in any process, that found no callback's ask within the window, and marks
 * it. Anyone else has it asked at the window's end by the settler (or sooner, if it is due
 * sooner): the callback's news is heard within the window and the operator is not asked again.
 */
export async function claimCallbackAsk(
  db: Kysely<DB>,
  table: 'charges' | 'refunds',
  id: string,
  now: number,
): Promise<boolean> {
  const claimed = await db
    .updateTable(table)
    .set({ callback_asked_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) =>
      eb.or([eb('callback_asked_at', 'is', null), eb('callback_asked_at', '<=', now - CALLBACK_ASK_WINDOW_MS)]),
    )
    .executeTakeFirst();
  if (claimed.numUpdatedRows > 0n) return true;
  const windowEnd = sql<number>`callback_asked_at + ${CALLBACK_ASK_WINDOW_MS}`;
  await db
    .updateTable(table)
    .set({ check_at: windowEnd })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    // A check time already past counts as later: the settler may be asking now, and its answer may predate the callback.
    .where((eb) => eb.or([eb('check_at', 'is', null), eb('check_at', '>', windowEnd), eb('check_at', '<=', now)]))
    .execute();
  return false;
}

/**
 * Keeps a charge or refund pending whose provider, asked at `askedAt`, has no final answer yet:
 * its new state, and when to ask again, unless a callback made an ask due sooner while this one
 * was under way, which is kept: the callback's news may postdate this answer.
 */
export async function recordStillPending(
  db: Kysely<DB>,
  table: 'charges' | 'refunds',
  id: string,
  pending: { providerState: string; checkAt: number },
  askedAt: number,
): Promise<void> {
  await db
    .updateTable(table)
    .set({
      provider_state: pending.providerState,
      check_at: sql<number>`CASE WHEN check_at > ${askedAt} AND check_at < ${pending.checkAt} THEN check_at ELSE ${pending.checkAt} END`,
      updated_at: askedAt,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}
