/**
 * The thread that copies a SQLite database's WAL back into the database while the gateway serves
 * (wal-checkpoints.ts): on its own connection, every `intervalMs`, a PASSIVE checkpoint, which
 * never waits for the writer and never makes it wait. A module of its own, and an entry of the
 * `lipira` bundle (bin/lipira.js), since a worker starts from a file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
}

/** What the thread tells the gateway: each failed checkpoint's reason (it tries again at the next interval). */
export type CheckpointNotice = { failed: string };

const { file, intervalMs } = workerData as CheckpointThreadData;
const port = parentPort!;
const connection = new BetterSqlite3(file);
connection.pragma('busy_timeout = 5000');

const timer = setInterval(() => {
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    port.postMessage({ failed: error instanceof Error ? error.message : String(error) } satisfies CheckpointNotice);
  }
}, intervalMs);

port.on('message', () => {
  clearInterval(timer);
  connection.close();
  port.close();
});
