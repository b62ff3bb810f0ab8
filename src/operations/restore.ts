import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { quoteIdentifier } from '../db/database.ts';
import { checkCopy, refusedCopy } from './copy-checks.ts';
import { takeRestoreLock } from './gateway-lock.ts';
import {
  commandLine,
  connectedGateways,
  databaseName,
  holdsData,
  restoreIntoScratch,
  runToolOrFail,
  withServer,
} from './postgres-tools.ts';

export interface RestoreReport {
  /** The checks the backup passed before it was put in place. */
  passed: string[];
  /** Where the database it replaced was kept: a file on SQLite, a database's name on PostgreSQL; null when there was none. */
  keptAside: string | null;
}

/**
 * Puts a backup (`lipira backup`'s file) in place of the database a URL names: refused while a
 * gateway uses it, and unless the backup passes the copy checks first. A database holding data is
 * replaced only when `replace` says so, and is then kept aside, never deleted.
 */
export async function restoreDatabase(file: string, url: string, replace: boolean): Promise<RestoreReport> {
  if (!fs.existsSync(file)) throw new Error(`there is no backup at ${file}`);
  return url.startsWith('sqlite:')
    ? restoreSqlite(file, url.slice('sqlite:'.length), replace)
    : restorePostgres(file, url, replace);
}

/** The suffix of a replaced database kept aside: when it was replaced, to the second, in UTC. */
const asideStamp = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'z')
    .toLowerCase();

const replaceHint = (what: string) =>
  `${what} already holds data: pass --replace to replace it (it is kept aside, not deleted)`;

/**
 * The backup is copied beside the database and checked there, so the operator's file is never
 * changed; the database it replaces is first checkpointed out of WAL mode (so no -wal file of it
 * is left to be read with the restored one), then renamed aside; the checked copy is renamed in.
 */
async function restoreSqlite(file: string, target: string, replace: boolean): Promise<RestoreReport> {
  const lock = takeRestoreLock(target);
  try {
    const hasData = fs.existsSync(target) && fs.statSync(target).size > 0;
    if (hasData && !replace) throw new Error(replaceHint(target));
    const staging = `${target}.restoring`;
    removeDatabaseFiles(staging);
    fs.copyFileSync(file, staging);
    const checks = await checkCopy(`sqlite:${staging}`);
    if (checks.problems.length > 0) {
      removeDatabaseFiles(staging);
      throw refusedCopy(`${file} failed its checks: nothing was restored`, checks);
    }
    let keptAside: string | null = null;
    if (hasData) {
      leaveWalMode(target);
      keptAside = `${target}.replaced-${asideStamp(new Date())}`;
      fs.renameSync(target, keptAside);
    } else {
      removeDatabaseFiles(target);
    }
    fs.renameSync(staging, target);
    return { passed: checks.passed, keptAside };
  } finally {
    lock.release();
  }
}

/**
 * Copies the WAL into the database file and turns WAL mode off, which SQLite allows only when no
 * other connection has the file open (an operator's command, say): the file then stands alone.
 */
function leaveWalMode(file: string): void {
  const connection = new BetterSqlite3(file, { fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 5000');
    connection.pragma('wal_checkpoint(TRUNCATE)');
    const mode = connection.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw new Error(`${file} is open in another process: close it and restore again`);
  } finally {
    connection.close();
  }
}

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/**
 * pg_restore into a new database beside the configured one, checked there, then swapped in by
 * renaming: the database it replaces keeps its data under a name of its own. PostgreSQL renames
 * a database only while no one is connected to it, so a gateway that connected after the check
 * still stops the swap.
 */
async function restorePostgres(file: string, url: string, replace: boolean): Promise<RestoreReport> {
  const name = databaseName(url);
  await runToolOrFail('pg_restore', ['--list', file], {
    instead: `${commandLine('pg_restore', ['--no-owner', '--exit-on-error', file], url)} (into an empty database)`,
  });
  const gateways = await connectedGateways(url);
  if (gateways > 0)
    throw new Error(
      `a gateway is using ${name} (${gateways} connection(s) named lipira-gateway): stop every gateway first (a restore never replaces a database under a running gateway)`,
    );
  const hasData = await holdsData(url);
  if (hasData && !replace) throw new Error(replaceHint(`the database ${name}`));
  const scratch = await restoreIntoScratch(file, url, 'restoring');
  try {
    const checks = await checkCopy(scratch.url);
    if (checks.problems.length > 0) throw refusedCopy(`${file} failed its checks: nothing was restored`, checks);
    const keptAside = hasData ? `${name}_replaced_${asideStamp(new Date())}` : null;
    await withServer(url, async (client) => {
      // Renames may share a transaction, so the configured name is never left to neither; a drop may not.
      if (!keptAside) await client.query(`drop database if exists ${quoteIdentifier(name)}`);
      await client.query('begin');
      try {
        if (keptAside)
          await client.query(`alter database ${quoteIdentifier(name)} rename to ${quoteIdentifier(keptAside)}`);
        await client.query(`alter database ${quoteIdentifier(scratch.name)} rename to ${quoteIdentifier(name)}`);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    });
    return { passed: ['pg_restore restored it whole', ...checks.passed], keptAside };
  } finally {
    await scratch.drop();
  }
}
