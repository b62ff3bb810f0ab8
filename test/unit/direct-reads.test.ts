import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prepared } from '../../src/db/prepared.ts';
import { useMigratedSqlite } from '../helpers/databases.ts';

describe('prepared reads run directly on SQLite (src/db/prepared.ts)', () => {
  const sqlite = useMigratedSqlite();

  const listLogs = prepared((db, owner: string) =>
    db.selectFrom('logs').select(['type', 'message', 'created_at']).where('owner_id', '=', owner).orderBy('id'),
  );
  const addLog = (owner: string, message: string) =>
    sqlite.database.db.insertInto('logs').values({ owner_id: owner, type: 'log', message, created_at: 7 }).execute();

  test('rows come back as plain objects with every selected column, in order', async () => {
    await addLog('rows', 'first');
    await addLog('rows', 'second');
    assert.deepEqual(await listLogs(sqlite.database.db, 'rows'), [
      { type: 'log', message: 'first', created_at: 7 },
      { type: 'log', message: 'second', created_at: 7 },
    ]);
  });

  test('a read made while a transaction is open on the connection never sees its uncommitted writes', async () => {
    let readDuringTransaction: Promise<unknown[]> | undefined;
    await assert.rejects(
      sqlite.database.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('logs')
          .values({ owner_id: 'rolled-back', type: 'log', message: 'never committed', created_at: 7 })
          .execute();
        // The one connection is inside the transaction now: a direct read would see the row.
        readDuringTransaction = listLogs(sqlite.database.db, 'rolled-back');
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await readDuringTransaction, []);
  });

  test('a read made during a group commit waits for it and sees what it committed', async () => {
    const write = sqlite.database.transact(async (trx) => {
      await trx
        .insertInto('logs')
        .values({ owner_id: 'grouped', type: 'log', message: 'committed', created_at: 7 })
        .execute();
    });
    await new Promise((resolve) => setImmediate(resolve));
    const read = listLogs(sqlite.database.db, 'grouped');
    await write;
    assert.deepEqual(await read, [{ type: 'log', message: 'committed', created_at: 7 }]);
  });
});
