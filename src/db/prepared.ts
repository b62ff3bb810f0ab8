import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * A query built once and afterwards only run. Building and compiling a Kysely query costs about
 * a tenth of a millisecond, several times what SQLite then takes to answer it; on the hot paths
 * (every verify, every page) that dominated. The SQL is compiled once per dialect from `build`,
 * which must use each of its parameters exactly once and in order, and no other value (a
 * constant goes in as `sql.lit`): checked the first time, so a mistake fails loudly, not quietly.
 */
export function prepared<P extends unknown[], R>(build: (db: Kysely<DB>, ...params: P) => Compilable<R>): (db: Kysely<DB>, ...params: P) => Promise<R[]> {
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
    }
    return (await db.executeQuery(CompiledQuery.raw(text, params))).rows as R[];
  };
}
