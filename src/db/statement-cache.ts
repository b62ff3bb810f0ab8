import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Enough for every distinct query the gateway makes, with room for `IN (…)` lists of other lengths. */
const MAX_STATEMENTS = 1000;

/**
 * Kysely prepares every query anew, and preparing costs SQLite more than running a simple
 * query. This keeps the prepared statements by SQL text, so the same query is compiled once per
 * connection. Safe because Kysely only runs statements to completion (`all`/`run`), never leaves
 * one mid-iteration.
 */
export function withStatementCache(connection: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = connection.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
