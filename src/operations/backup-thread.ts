/**
 * The thread the gateway's scheduled backups run in (backup-schedule.ts): better-sqlite3 is
 * synchronous, and copying and checking a database takes seconds that the gateway's event loop
 * must not wait. One question at a time, answered with what the backup passed or why it failed. A
 * module of its own, and an entry of the `lipira` bundle (bin/lipira.js), since a worker starts
 * from a file.
 */
import { parentPort } from 'node:worker_threads';
import { backupDatabase } from './backup.ts';
import { messageOf } from './copy-checks.ts';

export interface BackupQuestion {
  url: string;
  target: string;
}

export type BackupAnswer = { passed: string[] } | { failure: string };

const port = parentPort!;

port.on('message', async ({ url, target }: BackupQuestion) => {
  let answer: BackupAnswer;
  try {
    answer = { passed: (await backupDatabase(url, target)).passed };
  } catch (error) {
    answer = { failure: messageOf(error) };
  }
  port.postMessage(answer);
});
