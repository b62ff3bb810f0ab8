/**
 * A worker module for test/unit/lazy-thread.test.ts: it answers each question with its thread id
 * and when it began and ended (epoch ms), after keeping the thread busy for `busyMs` (its work
 * cannot be interrupted, as a password estimate's cannot), or it ends the thread or throws.
 */
import { parentPort, threadId } from 'node:worker_threads';

export interface TestQuestion {
  busyMs?: number;
  exitCode?: number;
  throws?: string;
}

export interface TestAnswer {
  threadId: number;
  began: number;
  ended: number;
}

parentPort!.on('message', ({ busyMs = 0, exitCode, throws }: TestQuestion) => {
  if (exitCode !== undefined) process.exit(exitCode);
  if (throws !== undefined) throw new Error(throws);
  const began = Date.now();
  while (Date.now() - began < busyMs) {
    // busy on purpose
  }
  parentPort!.postMessage({ threadId, began, ended: Date.now() } satisfies TestAnswer);
});
