import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { LazyThread } from '../shared/lazy-thread.ts';
import { startWorkerLoop } from '../shared/worker-loop.ts';
import type { BackupAnswer, BackupQuestion } from './backup-thread.ts';
import { messageOf } from './copy-checks.ts';

/** What `/readyz` and `/metrics` report of the gateway's own backups. */
export interface BackupStatus {
  intervalMs: number;
  /** When this gateway started keeping backups (epoch ms). */
  since: number;
  /** When the newest good backup in BACKUP_DIR was taken (epoch ms), null while there is none. */
  lastGoodAt: number | null;
}

/**
 * A backup is too old once two intervals have passed without a good one: one interval late is a
 * round that failed or ran long, two is a schedule that is not working. A gateway with no backup
 * yet counts from its start.
 */
const INTERVALS_TOO_OLD = 2;

export const tooOldAfterMs = (status: BackupStatus): number => INTERVALS_TOO_OLD * status.intervalMs;

export const backupTooOld = (status: BackupStatus, now: number): boolean =>
  now - (status.lastGoodAt ?? status.since) > tooOldAfterMs(status);

/** Seconds since the last good backup; infinite while there is none, so that an alert on age fires. */
export const backupAgeSeconds = (status: BackupStatus, now: number): number =>
  status.lastGoodAt === null ? Infinity : Math.max(0, now - status.lastGoodAt) / 1000;

/**
 * Backups are named by when they were taken, in UTC to the millisecond, so their names sort in
 * time order, and the name alone says how old the newest is after a restart. Only a checked copy
 * gets such a name (backup.ts); a `.partial` left by a crash is removed at the next start.
 */
const BACKUP_NAME = /^lipira-backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})Z\.db$/;

export const backupFileName = (takenAt: number): string =>
  `lipira-backup-${new Date(takenAt).toISOString().replace(/:/g, '-')}.db`;

function takenAt(name: string): number | null {
  const match = BACKUP_NAME.exec(name);
  return match ? Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) : null;
}

/** The backups in `dir`, oldest first. */
export function backupsIn(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => takenAt(name) !== null)
    .sort();
}

const THREAD_MODULE = new URL(`./backup-thread${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * One backup at a time in a thread of its own, started for each round and ended a minute after.
 * A copy of a large database and its checks may take minutes on a slow disk; an hour is a stuck
 * thread, ended, and the round counted failed.
 */
const thread = new LazyThread<BackupQuestion, BackupAnswer>(THREAD_MODULE, {
  answerWithinMs: 3_600_000,
  startWithinMs: 30_000,
  endIdleAfterMs: 60_000,
});

export interface BackupSchedule {
  status: BackupStatus;
  /** Stops scheduling and waits for the backup in progress. */
  stop(): Promise<void>;
}

/**
 * The gateway's rotating backups of its SQLite database (BACKUP_DIR, BACKUP_INTERVAL,
 * BACKUP_KEEP): every interval a checked copy (`lipira backup`'s), then the oldest beyond
 * BACKUP_KEEP removed. One is taken at start when the newest is an interval old or missing.
 */
export function startBackupSchedule(
  config: Pick<Config, 'databaseUrl' | 'backupIntervalMs' | 'backupKeep'> & { backupDir: string },
  log: FastifyBaseLogger | null,
): BackupSchedule {
  const dir = config.backupDir;
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new Error(`BACKUP_DIR ${dir} cannot hold backups: ${messageOf(error)}`);
  }
  for (const name of fs.readdirSync(dir))
    if (name.startsWith('lipira-backup-') && name.endsWith('.partial'))
      fs.rmSync(path.join(dir, name), { force: true });
  const newest = backupsIn(dir).at(-1);
  const status: BackupStatus = {
    intervalMs: config.backupIntervalMs,
    since: Date.now(),
    lastGoodAt: newest === undefined ? null : takenAt(newest),
  };
  const loop = startWorkerLoop(
    'backups',
    config.backupIntervalMs,
    async () => {
      const started = Date.now();
      const target = path.join(dir, backupFileName(started));
      const answer = await thread.ask({ url: config.databaseUrl, target });
      if ('failure' in answer) throw new Error(`the scheduled backup failed: ${answer.failure}`);
      status.lastGoodAt = started;
      const backups = backupsIn(dir);
      for (const old of backups.slice(0, Math.max(0, backups.length - config.backupKeep)))
        fs.rmSync(path.join(dir, old), { force: true });
      log?.info({ file: target, checks: answer.passed }, 'backup taken and checked');
    },
    log,
  );
  if (status.lastGoodAt === null || Date.now() - status.lastGoodAt >= config.backupIntervalMs) loop.wake();
  return { status, stop: () => loop.stop() };
}
