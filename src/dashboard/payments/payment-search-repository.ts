/**
 * How a search reads its rows on each database. PostgreSQL's planner chooses for itself, from its
 * statistics, between the trigram index (few matches: read them, then sort) and the list's own
 * index read in order with each row's text compared (many: the first page's rows come soon).
 * SQLite cannot see into its FTS5 table, so the choice is made here: the index is asked for the
 * rowids it matches, up to INDEX_MATCHES_READ; when there are no more than that, the query reads
 * those rows, else the rows in list order, comparing each row's text, which then stops soon.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/schema.ts';
import {
  CHARGE_SEARCH,
  columnsTextSql,
  SESSION_SEARCH,
  searchTextSql,
  type SearchIndex,
} from '../../db/search-text.ts';
import { SHORTEST_WORD, type PaymentSearch } from './payment-search.ts';

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
 * `ref`, a column the merchant's list indexes begin with (merchant_id, mode, status), as a WHERE
 * term of a query whose rows of the index's table the plan finds: `+ref` when SQLite reads the
 * rows its index found, which keeps every index from serving the term, so the found rowids are
 * the query's only way in. Without statistics (the gateway runs no ANALYZE) SQLite takes an
 * equality on an index's leading columns for a few rows, and chose to walk the merchant's whole
 * list index in order, testing each row's rowid against the few found: at 1,000,000 sessions a
 * search that found eleven took half a second (EXPLAIN QUERY PLAN: SEARCH s USING INDEX
 * checkout_sessions_list (merchant_id=? AND mode=?)). A search read in list order keeps the term.
 */
export function scopeRef(plan: SearchPlan | null, index: SearchIndex, ref: string): RawBuilder<unknown> {
  const reading = index === SESSION_SEARCH ? plan?.sessions : plan?.charges;
  return reading?.through === 'index' ? sql`+${sql.ref(ref)}` : sql.ref(ref);
}

/**
 * The search compared with the row's own text, as the index would match it: each word anywhere
 * in the text, in any case (on PostgreSQL through its trigram indexes, `trigramHolds`; on SQLite
 * the text lowered as its index holds it).
 */
export function rowTextMatches(
  postgres: boolean,
  index: SearchIndex,
  alias: string,
  search: PaymentSearch,
): Expression<SqlBool> {
  const text = sql.raw(`(${searchTextSql(index, alias)})`);
  const holds = (word: string) =>
    postgres ? trigramHolds(index, alias, word) : sql`instr(lower(${text}), ${word}) > 0`;
  const alternatives = search.alternatives.map((words) => sql`(${sql.join(words.map(holds), sql` and `)})`);
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}

/**
 * A word in a row's text on PostgreSQL, asked so that its GIN indexes answer it reading little.
 * GIN takes the rows that hold a pattern's rarest trigram and, for each, looks up every other
 * trigram of the pattern: `seed-54321` as one pattern holds `see` and `eed`, which every tx_ref
 * of the bench holds, and three-digit trigrams found in one row in a hundred (the random 11-digit
 * references hold nine each), so GIN read the long lists of `see` and `eed` whole, 1,500 pages:
 * 25 to 60 ms a search at 1,000,000 sessions. Instead each run of letters and digits of the word
 * (what pg_trgm makes trigrams of) is a pattern of its own, longest first: GIN takes the patterns
 * in turn and looks a later one up only at the rows the earlier ones matched, so a common run
 * (`seed`) is read at a few rows when a longer, rarer one (`54321`) comes first; given first, it
 * would be read at every row the other's rarest trigram holds (1,000 pages). A run is looked for
 * in each group of columns with its own index (src/db/search-text.ts), where the references'
 * digits do not make a tx_ref's run common: 80 pages and 1 to 4 ms where one index over the whole
 * text needed 350. A word lies within one column, so all its runs lie within that column's group;
 * the word itself is then checked in the text of the rows found, with strpos, which no index serves.
 */
function trigramHolds(index: SearchIndex, alias: string, word: string): RawBuilder<unknown> {
  const runs = wordRuns(word);
  const inGroups = index.trigramIndexes.map(({ columns }) => {
    const text = sql.raw(`(${columnsTextSql(columns, alias)})`);
    const patterns = runs.map((run) => sql`${text} ilike ${`%${run.replace(/[\\%_]/g, '\\$&')}%`}`);
    return sql`(${sql.join(patterns, sql` and `)})`;
  });
  const found = sql`(${sql.join(inGroups, sql` or `)})`;
  if (runs.length === 1 && runs[0] === word) return found;
  const whole = sql.raw(`(${searchTextSql(index, alias)})`);
  return sql`(${found} and strpos(lower(${whole}), lower(${word})) > 0)`;
}

/**
 * The word's runs of letters and digits of SHORTEST_WORD characters or more, longest first (more
 * trigrams, each of which a row must hold: likelier the rarer); the word itself when it has none
 * (pg_trgm then finds what trigrams it can in it).
 */
function wordRuns(word: string): string[] {
  const runs = word.split(/[^\p{L}\p{N}]+/u).filter((run) => [...run].length >= SHORTEST_WORD);
  if (runs.length === 0) return [word];
  return [...new Set(runs)].sort((a, b) => [...b].length - [...a].length);
}

/** The search as an FTS5 query: each word a phrase (its trigrams in a row, so anywhere in the text). */
function ftsQuery(search: PaymentSearch): string {
  const phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;
  return search.alternatives.map((words) => `(${words.map(phrase).join(' AND ')})`).join(' OR ');
}
