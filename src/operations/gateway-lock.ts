import BetterSqlite3 from 'better-sqlite3';

/**
 * Whether a gateway is using a SQLite database, told by a lock the operating system holds for it.
 * Each gateway holds a shared lock on a small side file beside the database for as long as it
 * runs; `lipira restore` takes that file's exclusive lock, which it gets only when no gateway
 * holds one, and keeps it while it swaps the files, so that a gateway starting meanwhile refuses
 * to. The locks are SQLite's own (POSIX record locks), which the kernel releases when a process
 * ends however it ends, so a killed gateway leaves no stale lock. The -shm file's presence would
 * not do: a killed gateway leaves it behind, and a clean close removes it while a CLI command may
 * still have the database open (docs/decisions.md#2026-11-29--backups-and-restores).
 */
export const lockFileOf = (databaseFile: string): string => `${databaseFile}-gateway-lock`;

const BUSY = 'SQLITE_BUSY';

export interface HeldLock {
  release(): void;
}

/** The gateway's side: a shared lock held until released; refused while a restore holds the exclusive one. */
export function holdServingLock(databaseFile: string): HeldLock {
  const connection = new BetterSqlite3(lockFileOf(databaseFile));
  try {
    connection.pragma('busy_timeout = 0');
    // In EXCLUSIVE locking mode a connection keeps the shared lock its first read takes.
    connection.pragma('locking_mode = EXCLUSIVE');
    connection.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === BUSY)
      throw new Error(
        `${databaseFile} is being restored (lipira restore): start the gateway once the restore has ended`,
      );
    throw error;
  }
  return { release: () => connection.close() };
}

/** The restore's side: the exclusive lock, refused while any gateway holds its shared one. */
export function takeRestoreLock(databaseFile: string): HeldLock {
  const connection = new BetterSqlite3(lockFileOf(databaseFile));
  try {
    connection.pragma('busy_timeout = 0');
    connection.exec('begin exclusive');
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === BUSY)
      throw new Error(
        `a gateway is using ${databaseFile}: stop it first (a restore never replaces a database under a running gateway)`,
      );
    throw error;
  }
  return {
    release() {
      connection.exec('rollback');
      connection.close();
    },
  };
}
