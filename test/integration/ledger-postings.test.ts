import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { AccountKind } from '../../src/db/schema.ts';
import { balanceOf, InsufficientFunds, post, SYSTEM, type AccountKey } from '../../src/ledger/ledger-repository.ts';
import { checkLedger } from '../../src/ledger/ledger-service.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';

/**
 * Postings that name one account more than once move its balance by their sum, on both engines
 * (PostgreSQL moves every balance of a transaction in one UPDATE, which changes a row once).
 */
for (const kind of DATABASE_KINDS) {
  describe(`ledger postings to one account twice on ${kind}`, () => {
    let fresh: TestDatabase;
    let database: Database;
    before(async () => {
      fresh = freshDatabase(kind);
      database = await openMigratedDatabase(fresh.url);
    });
    after(async () => {
      await database.close();
      await fresh.drop();
    });
    const account = (owner: string, accountKind: AccountKind): AccountKey => ({
      owner,
      mode: 'test',
      currency: 'MWK',
      kind: accountKind,
    });

    test("the balance moves by the postings' sum, and the ledger checks clean", async () => {
      const main = account('mer_twice', 'main');
      const external = account(SYSTEM, 'external');
      await database.db.transaction().execute((trx) =>
        post(
          trx,
          { mode: 'test', kind: 'collection', reference: 'twice_1' },
          [
            { account: main, amountMinor: 500 },
            { account: main, amountMinor: -200 },
            { account: external, amountMinor: -300 },
          ],
          Date.now(),
        ),
      );
      assert.equal(await balanceOf(database.db, main), 300);
      assert.deepEqual(await checkLedger(database.db), []);
    });

    test('postings whose sum would take a merchant account below zero are refused, and nothing is written', async () => {
      const main = account('mer_twice_short', 'main');
      const external = account(SYSTEM, 'external');
      await assert.rejects(
        database.db.transaction().execute((trx) =>
          post(
            trx,
            { mode: 'test', kind: 'collection', reference: 'twice_2' },
            [
              { account: main, amountMinor: 100 },
              { account: main, amountMinor: -150 },
              { account: external, amountMinor: 50 },
            ],
            Date.now(),
          ),
        ),
        InsufficientFunds,
      );
      assert.equal(await balanceOf(database.db, main), 0);
      assert.deepEqual(await checkLedger(database.db), []);
    });
  });
}
