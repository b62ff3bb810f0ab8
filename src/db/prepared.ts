import {
  CompiledQuery,
  type Compilable,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
} from 'kysely';
import { isPostgres } from './dialect.ts';
import type { DB } from './schema.ts';
import type { CachedConnection } from './statement-cache.ts';

/**
 * SQLite handles whose prepared statements may run on the connection directly: the database
 * itself, whose reads may while no transaction is open (see `prepared`), and transactions that
 * hold the connection, whose every prepared statement may (see `preparedInsert`).
 */
const directConnections = new WeakMap<Kysely<DB>, { connection: CachedConnection; holdsConnection: boolean }>();

/**
 * The SQL of every `prepared` query compiled for PostgreSQL, with the name under which each
 * connection asks the server to keep it parsed and planned (see `namedStatement`): planning a
 * simple query took the server longer than running it.
 */
const serverStatements = new Map<string, string>();
let statementsNamed = 0;

/** The server-side statement name for SQL that `prepared` compiled, if it did. */
export function namedStatement(sql: string): string | undefined {
  return serverStatements.get(sql);
}

export function readDirectly(db: Kysely<DB>, connection: CachedConnection): void {
  directConnections.set(db, { connection, holdsConnection: false });
}

/** `trx` is a transaction open on `connection`, and nothing else can use the connection until it ends. */
export function runDirectlyWithin(trx: Kysely<DB>, connection: CachedConnection): void {
  directConnections.set(trx, { connection, holdsConnection: true });
}

/**
 * A query built once and afterwards only run. Building and compiling a Kysely query costs about
 * a tenth of a millisecond, several times what SQLite then takes to answer it; on the hot paths
 * (every verify, every page) that dominated. The SQL is compiled once per dialect from `build`,
 * which must use each of its parameters exactly once and in order, and no other value (a
 * constant goes in as `sql.lit`): checked the first time, so a mistake fails loudly, not quietly.
 *
 * On SQLite (`readDirectly`), a read outside any transaction runs on the connection at once:
 * better-sqlite3 answers synchronously, and Kysely's executor would add a lock and several
 * promises per query, more than the query itself costs. While a transaction is open on the one
 * connection, the read waits its turn through Kysely as before: run at once, it would see that
 * transaction's uncommitted writes. Only for SELECTs.
 */
export function prepared<P extends unknown[], R>(
  build: (db: Kysely<DB>, ...params: P) => Compilable<R>,
): (db: Kysely<DB>, ...params: P) => Promise<R[]> {
  const sqlByDialect = new Map<unknown, string>();
  return async (db, ...params) => {
    const dialect = db.getExecutor().adapter.constructor;
    let text = sqlByDialect.get(dialect);
    if (text === undefined) {
      const compiled = build(db, ...params).compile();
      if (compiled.parameters.length !== params.length || compiled.parameters.some((value, i) => value !== params[i])) {
        throw new Error(`prepared query must use its parameters once each, in order: ${compiled.sql}`);
      }
      text = compiled.sql;
      sqlByDialect.set(dialect, text);
      if (isPostgres(db)) serverStatements.set(text, `lipira_${++statementsNamed}`);
    }
    const direct = directConnections.get(db);
    if (direct && (direct.holdsConnection || !direct.connection.inTransaction))
      return direct.connection.select(text, params) as R[];
    const run = async () => (await db.executeQuery(CompiledQuery.raw(text, params))).rows as R[];
    try {
      return await run();
    } catch (error) {
      // A migration changed the columns a `select *` returns while this process was running (a
      // rolling upgrade): the server refuses the statement it kept. It is not named again.
      if (!isStalePlan(error)) throw error;
      serverStatements.delete(text);
      return run();
    }
  };
}

function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/**
 * An INSERT of one row, compiled once per dialect and set of columns, run with the row's values:
 * what `prepared` does for reads, for the writes on hot paths (every create). `finish` adds what
 * follows VALUES (e.g. ON CONFLICT) and must add no parameter. Resolves to the rows it inserted.
 * Within a transaction that holds a SQLite connection (`runDirectlyWithin`), it runs on the
 * connection at once, for the reasons `prepared` gives.
 */
export function preparedInsert<T extends keyof DB & string>(
  table: T,
  finish: (insert: InsertQueryBuilder<DB, T, InsertResult>) => Compilable<InsertResult> = (insert) => insert,
): (db: Kysely<DB>, row: Insertable<DB[T]>) => Promise<number> {
  // Compared column by column rather than joined into a key: joining 27 names per request cost more.
  const shapes: Array<{ dialect: unknown; columns: string[]; text: string }> = [];
  return async (db, row) => {
    const values = Object.values(row);
    const columns = Object.keys(row);
    const dialect = db.getExecutor().adapter.constructor;
    let text = shapes.find((shape) => shape.dialect === dialect && sameColumns(shape.columns, columns))?.text;
    if (text === undefined) {
      const compiled = finish(db.insertInto(table).values(row)).compile();
      if (compiled.parameters.length !== values.length || compiled.parameters.some((value, i) => value !== values[i])) {
        throw new Error(
          `prepared insert must take the row's values once each, in order (no undefined): ${compiled.sql}`,
        );
      }
      text = compiled.sql;
      shapes.push({ dialect, columns, text });
    }
    const direct = directConnections.get(db);
    if (direct?.holdsConnection) return direct.connection.run(text, values);
    return Number((await db.executeQuery(CompiledQuery.raw(text, values))).numAffectedRows ?? 0n);
  };
}

function sameColumns(known: string[], columns: string[]): boolean {
  return known.length === columns.length && known.every((column, i) => column === columns[i]);
}

/**
 * A statement built once per dialect and shape (`shapeOf`: e.g. the columns of its rows), then
 * only run, with `valuesOf`'s values: they must be exactly what `build` binds, in order (checked
 * the first time). For writes on hot paths that are more than one row's INSERT, such as two
 * tables written in one PostgreSQL statement. Resolves to the rows the statement changed; on
 * PostgreSQL, outside a transaction, it is a named statement as `prepared` queries are.
 */
export function preparedStatement<A extends unknown[]>(
  build: (db: Kysely<DB>, ...args: A) => Compilable<unknown>,
  valuesOf: (...args: A) => unknown[],
  shapeOf: (...args: A) => string,
): (db: Kysely<DB>, ...args: A) => Promise<number> {
  const texts = new Map<string, string>();
  return async (db, ...args) => {
    const values = valuesOf(...args);
    const key = `${isPostgres(db) ? 'postgres' : 'sqlite'}:${shapeOf(...args)}`;
    let text = texts.get(key);
    if (text === undefined) {
      const compiled = build(db, ...args).compile();
      if (compiled.parameters.length !== values.length || compiled.parameters.some((value, i) => value !== values[i])) {
        throw new Error(`prepared statement must bind the values it is given, once each, in order: ${compiled.sql}`);
      }
      text = compiled.sql;
      texts.set(key, text);
      if (isPostgres(db)) serverStatements.set(text, `lipira_${++statementsNamed}`);
    }
    const direct = directConnections.get(db);
    if (direct?.holdsConnection) return direct.connection.run(text, values);
    return Number((await db.executeQuery(CompiledQuery.raw(text, values))).numAffectedRows ?? 0n);
  };
}
