import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { columnsTextSql, SEARCH_INDEXES, searchTextSql, type SearchIndex, type TrigramIndex } from '../search-text.ts';

/**
 * The dashboard finds payments by any part of their text (src/db/search-text.ts) through each
 * database's own index of trigrams, so that a search reads the rows it finds rather than every row
 * of the merchant.
 *
 * PostgreSQL: pg_trgm (in postgresql-contrib; a trusted extension, so a database owner may create
 * it) and GIN indexes over each table's search text, which `ILIKE '%word%'` uses: two per table,
 * the numbers the gateway and the operators assign apart from the merchant's and customer's text
 * (`trigramIndexes` in src/db/search-text.ts says why). Built here over the rows already there,
 * holding writes to the two tables meanwhile: on a large database run `lipira migrate` before
 * `lipira serve`, whose statement timeout would stop it.
 *
 * SQLite: an FTS5 table of trigrams per table, contentless (the text is not stored twice) with
 * delete support, keyed by the row's rowid, which both tables keep through VACUUM since they have
 * indexes. Triggers keep it in step in the writing transaction; the rows already there are added
 * here. The text is lowercased as SQLite's lower() does (A to Z) and the index is case-sensitive,
 * so that a search read through the index and one that reads rows (the repository chooses) agree.
 */
export function paymentSearchMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await sql`create extension if not exists pg_trgm`.execute(db);
      for (const index of SEARCH_INDEXES) {
        if (dialect === 'postgres')
          for (const trigrams of index.trigramIndexes) await createTrigramIndex(db, index, trigrams);
        else await createFullTextTable(db, index);
      }
    },
  };
}

async function createTrigramIndex(db: Kysely<unknown>, index: SearchIndex, trigrams: TrigramIndex): Promise<void> {
  const text = sql.raw(columnsTextSql(trigrams.columns, null));
  await sql`create index ${sql.id(trigrams.name)} on ${sql.id(index.table)} using gin ((${text}) gin_trgm_ops)`.execute(
    db,
  );
}

async function createFullTextTable(db: Kysely<unknown>, index: SearchIndex): Promise<void> {
  const { name, table, columns } = index;
  const text = (row: string) => sql.raw(`lower(${searchTextSql(index, row)})`);
  const fts = sql.id(name);
  await sql`create virtual table ${fts} using fts5(search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`.execute(
    db,
  );
  await sql`create trigger ${sql.id(`${name}_insert`)} after insert on ${sql.id(table)} begin
  insert into ${fts} (rowid, search_text) values (new.rowid, ${text('new')});
end`.execute(db);
  await sql`create trigger ${sql.id(`${name}_update`)} after update of ${sql.raw(columns.join(', '))} on ${sql.id(table)} begin
  delete from ${fts} where rowid = old.rowid;
  insert into ${fts} (rowid, search_text) values (new.rowid, ${text('new')});
end`.execute(db);
  await sql`create trigger ${sql.id(`${name}_delete`)} after delete on ${sql.id(table)} begin
  delete from ${fts} where rowid = old.rowid;
end`.execute(db);
  await sql`insert into ${fts} (rowid, search_text) select rowid, ${text(table)} from ${sql.id(table)}`.execute(db);
}
