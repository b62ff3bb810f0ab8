import { sql } from 'kysely';

/**
 * A direct payment (a charge of its own, not a checkout session's attempt, not a payout), written
 * as the partial indexes over them are (migration 0016): both planners use such an index only
 * when the query repeats its condition, literals and all. Unqualified: it reads the charges row
 * of a query over that one table.
 */
export const DIRECT_PAYMENTS = sql<boolean>`session_id is null and kind = 'payment'`;
