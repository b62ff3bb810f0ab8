import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/**
 * Workers that crash this often within this window stop the whole gateway: a worker that cannot
 * stay up (a port taken, a database refusing it) would otherwise be replaced forever. So do this
 * many in a row that exit before they listen, however long each took to fail: on a loaded
 * machine a worker's start can take longer than the window's share, and a start that cannot
 * succeed must not be retried for ever.
 */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 30_000;

/**
 * The primary of `lipira serve --workers N`: it serves nothing itself. It forks `count` workers,
 * each a whole gateway (bin/lipira.js again, with the same arguments) on the port the primary
 * holds and hands connections round; replaces a worker that exits unexpectedly; and on SIGTERM or
 * SIGINT passes the signal to every worker, each of which closes its gateway, resolving 0 once all
 * have exited. Rejects once the workers are gone when they crashed `CRASH_LIMIT` times within
 * `CRASH_WINDOW_MS`, or `CRASH_LIMIT` in a row before listening.
 */
export function superviseWorkers(count: number, logger: Logger): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const running = new Set<Worker>();
    const crashes: number[] = [];
    const listened = new WeakSet<Worker>();
    let failedStartsInARow = 0;
    let ending: { failure: Error | null } | null = null;

    const fork = () => {
      const worker = cluster.fork();
      running.add(worker);
      logger.info({ worker: worker.process.pid }, 'worker started');
    };
    const end = (signal: NodeJS.Signals, failure: Error | null) => {
      // A stop asked for while crashes are already stopping everything still ends in failure.
      ending ??= { failure };
      for (const worker of running) worker.process.kill(signal);
    };

    cluster.on('listening', (worker, address) => {
      listened.add(worker);
      failedStartsInARow = 0;
      logger.info({ worker: worker.process.pid, port: address.port }, 'worker listening');
    });
    cluster.on('exit', (worker, code, signal) => {
      running.delete(worker);
      if (ending) {
        logger.info({ worker: worker.process.pid, code, signal }, 'worker stopped');
        if (running.size > 0) return;
        if (ending.failure) reject(ending.failure);
        else resolve(0);
        return;
      }
      const now = Date.now();
      crashes.push(now);
      while (crashes[0]! <= now - CRASH_WINDOW_MS) crashes.shift();
      if (!listened.has(worker)) failedStartsInARow += 1;
      const why =
        failedStartsInARow >= CRASH_LIMIT
          ? `${CRASH_LIMIT} times in a row before listening`
          : crashes.length >= CRASH_LIMIT
            ? `${CRASH_LIMIT} times within ${CRASH_WINDOW_MS / 1000} s`
            : null;
      if (why) {
        const failure = new Error(
          `workers exited unexpectedly ${why}, so lipira serve stopped (the log says why they exited)`,
        );
        logger.error({ worker: worker.process.pid, code, signal }, failure.message);
        end('SIGTERM', failure);
        if (running.size === 0) reject(failure);
        return;
      }
      logger.error({ worker: worker.process.pid, code, signal }, 'worker exited unexpectedly; starting another');
      fork();
    });

    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down: stopping the workers');
      end(signal, null);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    for (let started = 0; started < count; started++) fork();
  });
}
