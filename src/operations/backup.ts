import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { checkCopy, refusedCopy } from './copy-checks.ts';
import { commandLine, restoreIntoScratch, runToolOrFail } from './postgres-tools.ts';

export interface BackupReport {
  /** The checks the copy passed. */
  passed: string[];
  bytes: number;
}

/**
 * A consistent copy of the database a URL names into `target`, taken while gateways serve it,
 * and checked (copy-checks.ts) before it is given its name: a file at `target` is a good backup.
 * An existing file is never overwritten.
 */
export async function backupDatabase(url: string, target: string): Promise<BackupReport> {
  if (fs.existsSync(target)) throw new Error(`${target} already exists: a backup never overwrites a file`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    const passed = url.startsWith('sqlite:')
      ? await copySqlite(url.slice('sqlite:'.length), partial)
      : await dumpPostgres(url, target, partial);
    fs.renameSync(partial, target);
    return { passed, bytes: fs.statSync(target).size };
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

/**
 * `VACUUM INTO` on a connection of our own: one read transaction, so the copy is the database as
 * of one commit, and in WAL mode the gateway's writes go on beside it. SQLite's backup API would
 * start over each time another connection wrote, which under a steady load may be never.
 */
async function copySqlite(file: string, partial: string): Promise<string[]> {
  if (!fs.existsSync(file)) throw new Error(`there is no database at ${file}`);
  const source = new BetterSqlite3(file, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    source.prepare('vacuum into ?').run(partial);
  } finally {
    source.close();
  }
  const checks = await checkCopy(`sqlite:${partial}`);
  if (checks.problems.length > 0) throw refusedCopy('the copy failed its checks and was not kept', checks);
  return checks.passed;
}

/**
 * `pg_dump --format=custom`, then checked: `pg_restore --list` reads it, and restored into a
 * scratch database beside the configured one, it passes the copy checks; the scratch database
 * is dropped after.
 */
async function dumpPostgres(url: string, target: string, partial: string): Promise<string[]> {
  await runToolOrFail('pg_dump', ['--format=custom', `--file=${partial}`], {
    url,
    instead: commandLine('pg_dump', ['--format=custom', `--file=${target}`], url),
  });
  const listing = await runToolOrFail('pg_restore', ['--list', partial]);
  if (!/TABLE DATA \S+ kysely_migration /.test(listing))
    throw new Error('the dump holds no Lipira migration table: it is not of a Lipira database');
  const scratch = await restoreIntoScratch(partial, url, 'backup_check');
  try {
    const checks = await checkCopy(scratch.url);
    if (checks.problems.length > 0) throw refusedCopy('the dump failed its checks and was not kept', checks);
    return ['pg_restore lists it and restores it whole', ...checks.passed];
  } finally {
    await scratch.drop();
  }
}
