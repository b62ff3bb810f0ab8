/**
 * How a search reads its rows on each database. PostgreSQL's planner chooses for itself, from its
 * statistics, between the trigram index (few matches: read them, then sort) and the list's own
 * index read in order with each row's text compared (many: the first page's rows come soon).
 * SQLite cannot see into its FTS5 table, so the choice is made here: the index is asked for the
 * rowids it matches, up to INDEX_MATCHES_READ; when there are no more than that, the query reads
 * those rows, else the rows in list order, comparing each row's text, which then stops soon.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/schema.ts';
import { CHARGE_SEARCH, SESSION_SEARCH, searchTextSql, type SearchIndex } from '../../db/search-text.ts';
import type { PaymentSearch } from './payment-search.ts';

/**
 * Matches (over every merchant and mode) up to which SQLite reads the rows its index found: a
 * thousand rows read by rowid and sorted cost a few milliseconds, and a search matching more
 * than this is common enough that reading in list order finds a page's worth soon.
 */
export const INDEX_MATCHES_READ = 2000;

/** How one table's rows are read: those the index found, or the merchant's in list order, each compared. */
type Reading = { through: 'index'; rowids: number[] } | { through: 'rows' };

export interface SearchPlan {
  search: PaymentSearch;
  postgres: boolean;
  sessions: Reading;
  charges: Reading;
}

export async function planSearch(db: Kysely<DB>, search: PaymentSearch): Promise<SearchPlan> {
  if (isPostgres(db)) return { search, postgres: true, sessions: { through: 'rows' }, charges: { through: 'rows' } };
  const [sessions, charges] = await Promise.all([
    readingOf(db, SESSION_SEARCH, search),
    readingOf(db, CHARGE_SEARCH, search),
  ]);
  return { search, postgres: false, sessions, charges };
}

async function readingOf(db: Kysely<DB>, index: SearchIndex, search: PaymentSearch): Promise<Reading> {
  const table = sql.table(index.name);
  const { rows } = await sql<{
    rowid: number;
  }>`select rowid from ${table} where ${table} match ${ftsQuery(search)} limit ${INDEX_MATCHES_READ + 1}`.execute(db);
  return rows.length > INDEX_MATCHES_READ
    ? { through: 'rows' }
    : { through: 'index', rowids: rows.map((row) => Number(row.rowid)) };
}

/** Whether the row `alias` (of the index's table) is one the plan's search finds. */
export function textMatches(plan: SearchPlan, index: SearchIndex, alias: string): Expression<SqlBool> {
  const reading = index === SESSION_SEARCH ? plan.sessions : plan.charges;
  if (reading.through === 'index')
    return sql<SqlBool>`${sql.ref(`${alias}.rowid`)} in (select value from json_each(${JSON.stringify(reading.rowids)}))`;
  return rowTextMatches(plan.postgres, index, alias, plan.search);
}

/**
 * The search compared with the row's own text, as the index would match it: each word anywhere
 * in the text, in any case (ILIKE, which PostgreSQL's trigram index serves; on SQLite the text
 * lowered as its index holds it).
 */
export function rowTextMatches(
  postgres: boolean,
  index: SearchIndex,
  alias: string,
  search: PaymentSearch,
): Expression<SqlBool> {
  const text = sql.raw(`(${searchTextSql(index, alias)})`);
  const holds = (word: string) =>
    postgres ? sql`${text} ilike ${`%${word.replace(/[\\%_]/g, '\\$&')}%`}` : sql`instr(lower(${text}), ${word}) > 0`;
  const alternatives = search.alternatives.map((words) => sql`(${sql.join(words.map(holds), sql` and `)})`);
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}

/** The search as an FTS5 query: each word a phrase (its trigrams in a row, so anywhere in the text). */
function ftsQuery(search: PaymentSearch): string {
  const phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;
  return search.alternatives.map((words) => `(${words.map(phrase).join(' AND ')})`).join(' OR ');
}
