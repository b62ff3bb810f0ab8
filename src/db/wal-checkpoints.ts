import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { startThread } from '../shared/lazy-thread.ts';
import type { CheckpointNotice, CheckpointThreadData } from './checkpoint-thread.ts';

const THREAD_MODULE = new URL(`./checkpoint-thread${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * How often the thread checkpoints: a second's commits are a few thousand WAL pages at the
 * soak's rates, copied in tens of milliseconds on the thread's core time rather than the loop's.
 */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * The thread starts once the WAL file has grown past SQLite's own default checkpoint size
 * (1,000 pages): a gateway that has written less never needs it, and a thread's start (loading
 * its modules) measured 0.2 s of CPU, which every short-lived gateway of the test suite paid.
 */
export const START_AFTER_WAL_BYTES = 4 * 1024 * 1024;

export interface WalCheckpoints {
  /** Stops the thread, after the checkpoint it is in. */
  stop(): Promise<void>;
}

/**
 * Checkpoints a serving gateway's SQLite WAL from a thread of its own. A checkpoint run by a commit
 * (SQLite's automatic one) copies thousands of pages and waits for the disk on the event loop:
 * measured 30–300 ms a checkpoint of 9,000 pages here, every few seconds under load, and every
 * request waits it out. The connection's own automatic checkpoint stays, at a larger size, for a
 * thread that falls behind.
 */
export function startWalCheckpoints(file: string, log: FastifyBaseLogger | null): WalCheckpoints {
  let thread: { worker: Worker; ended: Promise<void> } | null = null;
  // A stat a second, on the loop: microseconds, until the thread is started.
  const watch = setInterval(() => {
    if (walBytes(file) <= START_AFTER_WAL_BYTES) return;
    clearInterval(watch);
    thread = startCheckpointThread(file, log);
  }, CHECKPOINT_INTERVAL_MS);
  watch.unref();
  return {
    async stop() {
      clearInterval(watch);
      if (!thread) return;
      // Unreferenced while it serves, so that it never keeps the process alive; referenced while the stop waits for it.
      thread.worker.ref();
      thread.worker.postMessage('stop');
      await thread.ended;
    },
  };
}

function walBytes(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

function startCheckpointThread(file: string, log: FastifyBaseLogger | null): { worker: Worker; ended: Promise<void> } {
  const worker = startThread(THREAD_MODULE, {
    workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointThreadData,
  });
  worker.unref();
  worker.on('message', ({ failed }: CheckpointNotice) => log?.warn({ reason: failed }, 'WAL checkpoint failed'));
  const ended = new Promise<void>((resolve) => {
    worker.on('exit', () => resolve());
    // An uncaught error ends the thread; the connection's automatic checkpoint then keeps the WAL bounded.
    worker.on('error', (error) => log?.error({ err: error }, 'the WAL checkpoint thread stopped'));
  });
  return { worker, ended };
}
