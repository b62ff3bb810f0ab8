import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { StatementCount } from './statement-count.ts';

/** Enough for every distinct query the gateway makes, with room for `IN (…)` lists of other lengths. */
const MAX_STATEMENTS = 1000;

/** What Kysely's SQLite dialect needs, and what a direct read needs besides (see `prepared`). */
export interface CachedConnection extends SqliteDatabase {
  readonly inTransaction: boolean;
  /** Runs a SELECT at once and returns its rows. */
  select(sql: string, parameters: readonly unknown[]): unknown[];
  /** Runs any other statement at once and returns how many rows it changed. */
  run(sql: string, parameters?: readonly unknown[]): number;
}

interface Reader {
  statement: BetterSqlite3.Statement;
  toRow: (values: unknown[]) => unknown;
}

/**
 * Kysely prepares every query anew, and preparing costs SQLite more than running a simple
 * query. This keeps the prepared statements by SQL text, so the same query is compiled once per
 * connection. Safe because Kysely only runs statements to completion (`all`/`run`), never leaves
 * one mid-iteration.
 *
 * Every statement passes through here, so each is counted in `count`: Kysely asks for a
 * statement once per run, and direct reads and writes come through `select` and `run`.
 */
export function withStatementCache(connection: BetterSqlite3.Database, count: StatementCount): CachedConnection {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const readers = new Map<string, Reader>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
    }
    return statement;
  };
  return {
    close: () => connection.close(),
    get inTransaction() {
      return connection.inTransaction;
    },
    prepare(sql) {
      count.sent += 1;
      return prepare(sql);
    },
    select(sql, parameters) {
      count.sent += 1;
      let reader = readers.get(sql);
      if (!reader) {
        const statement = connection.prepare(sql).raw(true);
        reader = { statement, toRow: rowBuilder(statement.columns().map((column) => column.name)) };
        if (readers.size >= MAX_STATEMENTS) readers.delete(readers.keys().next().value!);
        readers.set(sql, reader);
      }
      return (reader.statement.all(parameters) as unknown[][]).map(reader.toRow);
    },
    run(sql, parameters = []) {
      count.sent += 1;
      return Number(prepare(sql).run(parameters).changes);
    },
  };
}

/**
 * better-sqlite3 builds each row object through V8's API one property at a time, which for a
 * 27-column session cost more than finding the row (15 µs against 9 µs read as an array). Rows
 * are read as arrays and built by a function made once for the statement's columns: an object
 * literal of one fixed shape. Column names come from our own schema's SELECTs; they are quoted
 * as JSON string literals all the same.
 */
function rowBuilder(columns: string[]): (values: unknown[]) => unknown {
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => unknown;
}
