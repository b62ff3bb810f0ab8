import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { groupCommit, type Transact } from './group-commit.ts';
import { withStatementCache } from './statement-cache.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** A transaction acknowledged once committed; on SQLite, concurrent ones share commits. */
  transact: Transact;
  /** Where it lives, with no password: for logs and `lipira config`. */
  description: string;
  close(): Promise<void>;
}

// int8 columns hold money in minor units and epoch milliseconds: both far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export async function openDatabase(url: string): Promise<Database> {
  return url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url);
}

function openSqlite(file: string): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file);
  // WAL lets readers run beside the writer; FULL makes every acknowledged commit durable.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });
  return { db, dialect: 'sqlite', transact: groupCommit(db), description: `sqlite:${file}`, close: () => db.destroy() };
}

async function openPostgres(url: string): Promise<Database> {
  await createPostgresDatabaseIfMissing(url);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle connection the server drops (restart, failover) is discarded by the pool and replaced
  // on the next query; without a listener its 'error' event would crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const safe = new URL(url);
  safe.password = '';
  // PostgreSQL commits concurrent transactions side by side and shares their WAL flushes itself.
  const transact: Transact = (work) => db.transaction().execute(work);
  return { db, dialect: 'postgres', transact, description: safe.toString(), close: () => db.destroy() };
}

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505';

/** Connects to the server's `postgres` database and creates the target database when absent. */
export async function createPostgresDatabaseIfMissing(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return;
    await client.query(`create database ${quoteIdentifier(name)}`);
  } catch (error) {
    // Another process created it between our check and our create.
    const code = (error as { code?: string }).code;
    if (code !== DUPLICATE_DATABASE && code !== UNIQUE_VIOLATION) throw error;
  } finally {
    await client.end();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}
