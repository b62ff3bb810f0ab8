import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Runs `work` in a transaction and resolves once that transaction has committed. */
export type Transact = <T>(work: (trx: Kysely<DB>) => Promise<T>) => Promise<T>;

interface Pending {
  work: (trx: Kysely<DB>) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for SQLite. Every commit with `synchronous=FULL` waits for the disk, so one
 * transaction per request caps writes at the disk's flush rate. Here the work of every request
 * that arrives while a commit is under way is run in the next transaction, each in its own
 * savepoint (a failing one is rolled back alone), and all of them are answered after that one
 * commit. A request is still acknowledged only once its write is durable.
 */
export function groupCommit(db: Kysely<DB>): Transact {
  let queue: Pending[] = [];
  let flushing = false;

  async function commitBatch(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const item of batch) {
          await sql`savepoint group_item`.execute(trx);
          try {
            outcomes.push({ ok: true, value: await item.work(trx) });
            await sql`release savepoint group_item`.execute(trx);
          } catch (error) {
            outcomes.push({ ok: false, error });
            await sql`rollback to savepoint group_item`.execute(trx);
            await sql`release savepoint group_item`.execute(trx);
          }
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      await commitBatch(batch);
    }
    flushing = false;
  }

  return <T>(work: (trx: Kysely<DB>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!flushing) void flush();
    });
}
