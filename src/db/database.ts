import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { Kysely, PostgresDialect, SqliteDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { groupCommit, type Transact } from './group-commit.ts';
import { namedStatement, readDirectly } from './prepared.ts';
import { withStatementCache } from './statement-cache.ts';
import type { StatementCount } from './statement-count.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';
import { GATEWAY_APPLICATION_NAME } from './application-name.ts';
import { isDatabaseUnavailable } from './unavailable.ts';
import { listenForPostgresWork, watchSqliteWork, type OnWork, type WorkWatch } from './work-notices.ts';
import { startWalCheckpoints, type WalCheckpoints } from './wal-checkpoints.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** A transaction acknowledged once committed; on SQLite, concurrent ones share commits. */
  transact: Transact;
  /** Where it lives, with no password: for logs and `lipira config`. */
  description: string;
  /**
   * Statements sent through `db` and `transact` (and so every prepared one): not the few a
   * PostgreSQL start sends on its own connections (creating the database, listening for work).
   */
  statements: StatementCount;
  /**
   * Tells `onWork` when work for the background workers is written (see work-notices.ts): on
   * SQLite as this process writes it, on PostgreSQL as any process commits it. Call once the
   * schema is migrated.
   */
  watchWork(onWork: OnWork, log: FastifyBaseLogger | null): WorkWatch;
  /**
   * For a serving gateway: on SQLite, the WAL checkpointed from a thread of its own
   * (wal-checkpoints.ts), the connection's automatic checkpoint left only as its backup; on
   * PostgreSQL nothing, the server checkpoints.
   */
  checkpointInBackground(log: FastifyBaseLogger | null): WalCheckpoints;
  close(): Promise<void>;
}

/**
 * How long PostgreSQL may keep a caller waiting, so that an outage fails requests instead of
 * hanging them; and how to live behind a pooler (`listenUrl`, `namedStatements`: src/settings/settings.ts).
 */
export interface DatabaseLimits {
  /** Where the workers' LISTEN connection goes, when not to the pool's URL. */
  listenUrl?: string | null;
  /** False: no named prepared statements (a pooler in transaction mode that does not track them). */
  namedStatements?: boolean;
  /** Longest wait for a connection: a free one from the pool, or a new one to the server. */
  connectTimeoutMs: number;
  /**
   * Longest a statement may run (server side) and we wait for its answer (client side); also how
   * long the server keeps a transaction of ours open with no statement coming, so that one cut
   * off from us by the network does not hold its row locks until TCP notices.
   */
  queryTimeoutMs: number;
}

/**
 * How much longer than the server's statement timeout the client waits for an answer: a live
 * server cancels a slow statement first and says so; only a silent one is given up on.
 */
const ANSWER_MARGIN_MS = 1_000;

/** WAL pages (4 KiB each) after which a commit copies the WAL back into the SQLite database. */
const WAL_CHECKPOINT_PAGES = 10_000;
/** While a thread checkpoints (`checkpointInBackground`), a commit does only past this many times the size. */
const BACKUP_CHECKPOINT_FACTOR = 4;

// int8 columns hold money in minor units and epoch milliseconds: both far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Opens the database a URL names; `limits` (PostgreSQL only) are for serving: operator commands run unbounded. */
export async function openDatabase(url: string, limits?: DatabaseLimits): Promise<Database> {
  return url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url, limits);
}

function openSqlite(file: string): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file);
  // WAL lets readers run beside the writer; FULL makes every acknowledged commit durable.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  // Copy the WAL back into the database every ~40 MB rather than SQLite's 4 MB: a checkpoint
  // writes each page once however often the WAL changed it, and runs on the event loop. Under a
  // create load, 10× fewer checkpoints made a create ~15 % cheaper (docs/performance-history.md).
  connection.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  const statements: StatementCount = { sent: 0 };
  const cached = withStatementCache(connection, statements);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached }) });
  readDirectly(db, cached);
  return {
    db,
    dialect: 'sqlite',
    transact: groupCommit(db, cached),
    description: `sqlite:${file}`,
    statements,
    watchWork: (onWork) => watchSqliteWork(connection, onWork),
    checkpointInBackground(log) {
      connection.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES * BACKUP_CHECKPOINT_FACTOR}`);
      return startWalCheckpoints(file, log);
    },
    close: () => db.destroy(),
  };
}

async function openPostgres(url: string, limits: DatabaseLimits | undefined): Promise<Database> {
  await createPostgresDatabaseIfMissing(url, limits?.connectTimeoutMs);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(limits && {
      application_name: GATEWAY_APPLICATION_NAME,
      connectionTimeoutMillis: limits.connectTimeoutMs,
      statement_timeout: limits.queryTimeoutMs,
      idle_in_transaction_session_timeout: limits.queryTimeoutMs,
      query_timeout: limits.queryTimeoutMs + ANSWER_MARGIN_MS,
    }),
  });
  // A connection the server drops (restart, failover, network) fails its queries and is
  // discarded by the pool; the 'error' event it also emits, idle or in use, would crash the
  // process without a listener. In use, Kysely listens to no client events, hence one per client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const statements: StatementCount = { sent: 0 };
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: discardingDeadClients(pool, statements, limits?.namedStatements ?? true) }),
  });
  // PostgreSQL commits concurrent transactions side by side and shares their WAL flushes itself.
  const transact: Transact = (work) => db.transaction().execute(work);
  return {
    db,
    dialect: 'postgres',
    transact,
    description: maskUrlSecrets(url),
    statements,
    watchWork: (onWork, log) => listenForPostgresWork(limits?.listenUrl ?? url, limits?.connectTimeoutMs, onWork, log),
    checkpointInBackground: () => ({ stop: async () => {} }),
    close: () => db.destroy(),
  };
}

/**
 * The pool Kysely borrows from, except that a client whose query failed for want of the server
 * is destroyed on release rather than lent again, and refuses further queries at once. After a
 * query timeout node-postgres keeps the connection, but the server may still be running the
 * statement inside the transaction that failed: the next borrower would run in it, and the
 * rollback would only wait out another timeout. Queries built by `prepared` are sent as named
 * statements, which each connection has the server parse and plan once; only outside
 * transactions, where one the server refuses can simply be run again (see `prepared`). Each
 * query is counted in `statements`: every one Kysely sends, BEGIN and COMMIT included, is a round trip.
 */
function discardingDeadClients(pool: pg.Pool, statements: StatementCount, namedStatements: boolean): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let dead: Error | undefined;
      // Kysely borrows a connection for a whole transaction, which it starts with its first query.
      let inTransaction = false;
      const query = async (text: string, parameters: readonly unknown[]) => {
        if (dead) throw new Error('Connection terminated: an earlier query on it failed', { cause: dead });
        statements.sent += 1;
        inTransaction ||= TRANSACTION_START.test(text);
        try {
          const name = inTransaction || !namedStatements ? undefined : namedStatement(text);
          return await (name
            ? client.query({ name, text, values: parameters as unknown[] })
            : client.query(text, parameters as unknown[]));
        } catch (error) {
          if (isDatabaseUnavailable(error)) dead = error as Error;
          throw error;
        }
      };
      // Only the (text, parameters) form: the cursor form serves streaming, which needs a cursor
      // class in the dialect's config, and none is given.
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(dead) };
    },
    end: () => pool.end(),
  };
}

const TRANSACTION_START = /^(begin|start transaction)\b/i;

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505';

/** Connects to the server's `postgres` database and creates the target database when absent; a server that does not answer within `connectTimeoutMs` fails the start instead of hanging it. */
export async function createPostgresDatabaseIfMissing(url: string, connectTimeoutMs?: number): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: connectTimeoutMs });
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
