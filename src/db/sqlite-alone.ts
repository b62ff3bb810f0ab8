import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DB } from './schema.ts';

/** Another connection has the SQLite file open: a gateway, or another command. */
export class SqliteInUse extends Error {}

/**
 * Opens an existing SQLite database for this process alone, until `db.destroy()`: for an operation
 * that must read every table as one moment and that nobody writes to meanwhile.
 *
 * Every connection a gateway holds in WAL mode keeps a shared lock on the database file for as
 * long as it is open, busy or idle, so an exclusive lock is refused while a gateway (or any other
 * `lipira` command) has the file open: that refusal is how a running gateway is found. Once taken,
 * the lock is held until closed (`locking_mode = EXCLUSIVE`), and a gateway started meanwhile
 * waits out its busy timeout and fails to start rather than writing. Nothing is written: the
 * transaction that holds the lock is rolled back as the connection closes.
 */
export function openSqliteAlone(file: string): Kysely<DB> {
  if (!fs.existsSync(file)) throw new Error(`there is no SQLite database at ${file}`);
  const connection = new BetterSqlite3(file, { fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 0');
    connection.pragma('locking_mode = EXCLUSIVE');
    connection.exec('begin exclusive');
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new SqliteInUse(`sqlite:${file} is in use by another process (a running gateway?)`);
    throw new Error(`sqlite:${file} cannot be read: ${(error as Error).message}`);
  }
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) });
}
