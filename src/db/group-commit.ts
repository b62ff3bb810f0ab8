import type { Kysely } from 'kysely';
import { runDirectlyWithin } from './prepared.ts';
import type { DB } from './schema.ts';
import type { CachedConnection } from './statement-cache.ts';

/**
 * Runs `work` in a transaction and resolves once that transaction has committed. `work` must
 * write only through the handle it is given and may be run more than once: on SQLite, when
 * another write grouped with it fails, it runs again without that one.
 */
export type Transact = <T>(work: (trx: Kysely<DB>) => Promise<T>) => Promise<T>;

interface Pending {
  work: (trx: Kysely<DB>) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for SQLite, where a commit with `synchronous=FULL` waits for the disk (~0.3 ms
 * here) and, better-sqlite3 being synchronous, holds the event loop while it does. Writes that
 * arrive within one turn of the event loop (every request read from the sockets in that poll
 * phase) are run in one transaction and all of them are answered after that one commit: a
 * request is still acknowledged only once its write is durable. The flush waits for
 * `setImmediate` so that the batch is everything the poll phase produced, not just the first
 * request.
 *
 * A write that throws is answered with its error, the transaction is rolled back, and the rest
 * of the batch runs again without it. Failures are rare (a conflicting reference inserts nothing
 * rather than throwing); a savepoint per write, the alternative, made SQLite copy every page a
 * write touched into a sub-journal, for every write.
 *
 * The transaction holds Kysely's lock on the one connection, so the writes' prepared statements
 * run on the connection directly (`runDirectlyWithin`): through Kysely each statement cost a lock
 * and several promises.
 */
export function groupCommit(db: Kysely<DB>, connection: CachedConnection): Transact {
  let queue: Pending[] = [];
  let scheduled = false;

  async function commit(batch: Pending[]): Promise<void> {
    const values: unknown[] = [];
    let failed: { index: number; error: unknown } | undefined;
    try {
      await db.transaction().execute(async (trx) => {
        runDirectlyWithin(trx, connection);
        for (const [index, item] of batch.entries()) {
          try {
            values.push(await item.work(trx));
          } catch (error) {
            failed = { index, error };
            throw error;
          }
        }
      });
    } catch (error) {
      if (!failed) {
        for (const item of batch) item.reject(error); // the commit itself failed
        return;
      }
      const { index, error: itsError } = failed;
      batch[index]!.reject(itsError);
      return commit(batch.filter((_, i) => i !== index));
    }
    batch.forEach((item, i) => item.resolve(values[i]));
  }

  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    void commit(batch);
  }

  return <T>(work: (trx: Kysely<DB>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
