import { sql, type RawBuilder } from 'kysely';
import type { CheckoutSession } from '../core/session-repository.ts';

/**
 * How a session ended, as the merchant's dashboard and the customer's page tell it. The API and
 * webhooks say `failed` for every session that ended unpaid (PayChangu's contract); of those,
 * only `failed` ones were ended by their attempts failing: a `cancelled` one by the customer, an
 * `expired` one by its link running out. A success rate counts only `success` and `failed`.
 */
export type SessionOutcome = 'pending' | 'success' | 'failed' | 'cancelled' | 'expired';

type Ending = Pick<CheckoutSession, 'status' | 'failed_attempts' | 'completed_at' | 'expires_at'>;

/**
 * The last allowed failure ends a session as it happens, and expiry is recorded at or after the
 * link's end (`markFailed`); what ended neither way was the customer's cancel. Read with the
 * current CHECKOUT_MAX_FAILED_ATTEMPTS, as the checkout page does.
 */
export function sessionOutcome(session: Ending, maxFailedAttempts: number): SessionOutcome {
  if (session.status !== 'failed') return session.status;
  if (session.failed_attempts >= maxFailedAttempts) return 'failed';
  if (session.completed_at !== null && session.completed_at >= session.expires_at) return 'expired';
  return 'cancelled';
}

/** The status a session of that outcome has in the database and the API. */
export function recordedStatus(outcome: SessionOutcome): CheckoutSession['status'] {
  return outcome === 'cancelled' || outcome === 'expired' ? 'failed' : outcome;
}

/** `sessionOutcome` in SQL, over the checkout_sessions columns of `table` (its name or alias). */
export function sessionOutcomeSql(table: string, maxFailedAttempts: number): RawBuilder<SessionOutcome> {
  const column = (name: keyof Ending) => sql.ref(`${table}.${name}`);
  return sql<SessionOutcome>`case when ${column('status')} <> 'failed' then ${column('status')}
    when ${column('failed_attempts')} >= ${sql.lit(maxFailedAttempts)} then 'failed'
    when ${column('completed_at')} >= ${column('expires_at')} then 'expired'
    else 'cancelled' end`;
}
