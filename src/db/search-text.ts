/**
 * The text the dashboard's search finds a payment by, and the full-text index over it on each
 * database (migration 0021): on PostgreSQL a pg_trgm GIN index over the expression below, on
 * SQLite an FTS5 table of trigrams, named as the index, that triggers keep in step with its table.
 * A query must write the expression exactly as the index was made (`searchTextSql`), and a change
 * to the columns is a new migration that makes both indexes again.
 */
export interface SearchIndex {
  /** The index's name on PostgreSQL, and its FTS5 table's on SQLite. */
  name: string;
  table: 'checkout_sessions' | 'charges';
  /** The columns a search reads, apart from one another, in this order. */
  columns: readonly string[];
}

/** A session by its tx_ref, Lipira reference, customer's name and email. */
export const SESSION_SEARCH: SearchIndex = {
  name: 'checkout_sessions_search',
  table: 'checkout_sessions',
  columns: ['tx_ref', 'reference', 'first_name', 'last_name', 'email'],
};

/**
 * A charge (a direct payment, a session's attempt, a payout) by its charge_id, PayChangu ref_id,
 * customer's name, email, mobile number (masked, as stored) and the operator's id (`trans_id`).
 */
export const CHARGE_SEARCH: SearchIndex = {
  name: 'charges_search',
  table: 'charges',
  columns: ['charge_id', 'ref_id', 'first_name', 'last_name', 'email', 'mobile', 'trans_id'],
};

export const SEARCH_INDEXES: readonly SearchIndex[] = [SESSION_SEARCH, CHARGE_SEARCH];

/**
 * The columns of a row (`row` names it: a table alias, `new` in a trigger, null in the index) as
 * one text, each apart from the next by a space: a search word, which holds no space, is found
 * within one column.
 */
export function searchTextSql(index: SearchIndex, row: string | null): string {
  const prefix = row === null ? '' : `${row}.`;
  return index.columns.map((column) => `coalesce(${prefix}${column}, '')`).join(` || ' ' || `);
}
