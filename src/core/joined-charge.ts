/**
 * A charge read in the same statement as the row it belongs to (a join), so that a hot read is
 * one round trip instead of two. Both tables have columns of the same names (`id`, `status`…), so
 * the charge's are selected under names of their own and taken back out into a `Charge`.
 */
import { sql } from 'kysely';
import type { Charge } from './charge-repository.ts';

/**
 * Every column of `charges`, in the order the table has them on both databases (so a charge's
 * keys come in the order `selectAll()` gives). The object stops compiling when a column is added
 * to the schema and not here.
 */
const CHARGE_COLUMNS = Object.keys({
  id: true,
  merchant_id: true,
  mode: true,
  charge_id: true,
  ref_id: true,
  session_id: true,
  kind: true,
  channel: true,
  operator: true,
  mobile: true,
  card_brand: true,
  card_number: true,
  card_expiry: true,
  status: true,
  next_action: true,
  failure_reason: true,
  provider_state: true,
  check_at: true,
  amount_minor: true,
  currency: true,
  fee_minor: true,
  first_name: true,
  last_name: true,
  email: true,
  trans_id: true,
  attempts: true,
  created_at: true,
  completed_at: true,
  updated_at: true,
  request_hash: true,
  type: true,
  failure_code: true,
  refunded_minor: true,
  review_reason: true,
  callback_asked_at: true,
} satisfies Record<keyof Charge, true>) as Array<keyof Charge>;

type JoinedChargeColumn = `charge__${keyof Charge}`;

/** A row with a joined charge's columns (`joinedChargeColumns`), all null when the join found none. */
type WithJoinedCharge = Record<JoinedChargeColumn, unknown>;

/**
 * The columns of the `charges` row a query joins, each as `charge__<column>`, for `.select()`:
 * the same columns, so the drivers give the same types as `selectAll()` (`takeJoinedCharge`).
 */
export const joinedChargeColumns = CHARGE_COLUMNS.map((column) =>
  sql.ref(`charges.${column}`).as(`charge__${column}` as JoinedChargeColumn),
);

/**
 * Takes a joined charge's columns out of its row: the charge as `selectAll()` from `charges`
 * reads it, or undefined when the join found none. The row is kept, without them, so that it is
 * what a read of its own table alone gives (a session carries no column of its charge's).
 */
export function takeJoinedCharge<Row extends WithJoinedCharge>(
  row: Row,
): { row: Omit<Row, JoinedChargeColumn>; charge: Charge | undefined } {
  const found = row.charge__id !== null;
  const charge: Record<string, unknown> = {};
  for (const column of CHARGE_COLUMNS) {
    const joined: JoinedChargeColumn = `charge__${column}`;
    charge[column] = row[joined];
    delete row[joined];
  }
  return { row, charge: found ? (charge as Charge) : undefined };
}
