/**
 * The text the dashboard's search finds a payment by, and the full-text indexes over it on each
 * database (migration 0025): on SQLite an FTS5 table of trigrams over the whole text, named as the
 * index, that triggers keep in step with its table; on PostgreSQL pg_trgm GIN indexes, each over
 * the text of some of the columns (`trigramIndexes`). A query must write each expression exactly as
 * its index was made (`columnsTextSql`), and a change to the columns is a new migration that makes
 * the indexes again.
 */
export interface SearchIndex {
  /** The FTS5 table's name on SQLite. */
  name: string;
  table: 'checkout_sessions' | 'charges';
  /** The columns a search reads, apart from one another, in this order. */
  columns: readonly string[];
  /**
   * PostgreSQL's trigram indexes, which share the columns out: the numbers the gateway and the
   * operators assign (random 11-digit references, uuids, masked mobile numbers) have one of their
   * own. In one index with the rest, their digits put almost any three digits in a row in a
   * hundred, and a search for part of a tx_ref read some 350 index pages instead of 80
   * (`trigramHolds` in src/dashboard/payments/payment-search-repository.ts).
   */
  trigramIndexes: readonly TrigramIndex[];
}

export interface TrigramIndex {
  name: string;
  columns: readonly string[];
}

/** A session by its tx_ref, Lipira reference, customer's name and email. */
export const SESSION_SEARCH: SearchIndex = {
  name: 'checkout_sessions_search',
  table: 'checkout_sessions',
  columns: ['tx_ref', 'reference', 'first_name', 'last_name', 'email'],
  trigramIndexes: [
    { name: 'checkout_sessions_search', columns: ['tx_ref', 'first_name', 'last_name', 'email'] },
    { name: 'checkout_sessions_search_numbers', columns: ['reference'] },
  ],
};

/**
 * A charge (a direct payment, a session's attempt, a payout) by its charge_id, PayChangu ref_id,
 * customer's name, email, mobile number (masked, as stored) and the operator's id (`trans_id`).
 */
export const CHARGE_SEARCH: SearchIndex = {
  name: 'charges_search',
  table: 'charges',
  columns: ['charge_id', 'ref_id', 'first_name', 'last_name', 'email', 'mobile', 'trans_id'],
  trigramIndexes: [
    { name: 'charges_search', columns: ['charge_id', 'first_name', 'last_name', 'email'] },
    { name: 'charges_search_numbers', columns: ['ref_id', 'mobile', 'trans_id'] },
  ],
};

export const SEARCH_INDEXES: readonly SearchIndex[] = [SESSION_SEARCH, CHARGE_SEARCH];

/** The whole text of a row: what SQLite's index holds, and what PostgreSQL checks a found row's words in. */
export function searchTextSql(index: SearchIndex, row: string | null): string {
  return columnsTextSql(index.columns, row);
}

/**
 * The columns of a row (`row` names it: a table alias, `new` in a trigger, null in the index) as
 * one text, each apart from the next by a space: a search word, which holds no space, is found
 * within one column.
 */
export function columnsTextSql(columns: readonly string[], row: string | null): string {
  const prefix = row === null ? '' : `${row}.`;
  return columns.map((column) => `coalesce(${prefix}${column}, '')`).join(` || ' ' || `);
}
