import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { useMigratedSqlite } from '../helpers/databases.ts';
import type { DB } from '../../src/db/schema.ts';

describe('group commit (SQLite)', () => {
  const sqlite = useMigratedSqlite();

  const addLog = (trx: Kysely<DB>, owner: string) =>
    trx.insertInto('logs').values({ owner_id: owner, type: 'log', message: 'grouped', created_at: 1 }).execute();
  const logsOf = async (prefix: string) =>
    (
      await sqlite.database.db
        .selectFrom('logs')
        .select('owner_id')
        .where('owner_id', 'like', `${prefix}%`)
        .orderBy('owner_id')
        .execute()
    ).map((row) => row.owner_id);

  test('writes requested in one turn of the event loop share one transaction, and each resolves after it commits', async () => {
    const transactions = new Set<Kysely<DB>>();
    const writes = Array.from({ length: 20 }, (_, i) =>
      sqlite.database.transact(async (trx) => {
        transactions.add(trx);
        await addLog(trx, `same-turn-${String(i).padStart(2, '0')}`);
        return i;
      }),
    );
    assert.deepEqual(
      await Promise.all(writes),
      Array.from({ length: 20 }, (_, i) => i),
    );
    assert.equal(transactions.size, 1, 'one shared transaction');
    assert.equal((await logsOf('same-turn-')).length, 20, 'every write is committed once its promise resolves');
  });

  test('a write that fails is rolled back alone: the others in its group commit', async () => {
    const writes = ['ok-a', 'bad', 'ok-b'].map((owner) =>
      sqlite.database.transact(async (trx) => {
        await addLog(trx, `alone-${owner}`);
        if (owner === 'bad') throw new Error('refused after writing');
        return owner;
      }),
    );
    const outcomes = await Promise.allSettled(writes);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await logsOf('alone-'), ['alone-ok-a', 'alone-ok-b'], 'the failed write left nothing behind');
  });

  test('several failing writes in one group are each answered with their own error; the rest commit once', async () => {
    const writes = ['ok-a', 'bad-1', 'ok-b', 'bad-2', 'ok-c'].map((owner) =>
      sqlite.database.transact(async (trx) => {
        await addLog(trx, `several-${owner}`);
        if (owner.startsWith('bad')) throw new Error(owner);
        return owner;
      }),
    );
    const outcomes = await Promise.allSettled(writes);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      ['ok-a', 'bad-1', 'ok-b', 'bad-2', 'ok-c'],
    );
    assert.deepEqual(
      await logsOf('several-'),
      ['several-ok-a', 'several-ok-b', 'several-ok-c'],
      'each committed write once, no failed one',
    );
  });
});
