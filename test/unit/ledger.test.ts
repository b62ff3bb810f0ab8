import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { AccountKind, DB } from '../../src/db/schema.ts';
import { balanceOf, InsufficientFunds, post, SYSTEM, type AccountKey } from '../../src/ledger/ledger-repository.ts';
import {
  checkLedger,
  completePayout,
  completeRefund,
  creditCollection,
  merchantBalances,
  refundableBalance,
  releasePayout,
  reservePayout,
  reserveRefund,
  settleCollections,
  type Movement,
} from '../../src/ledger/ledger-service.ts';

describe('the double-entry ledger (SQLite)', () => {
  let dir: string;
  let database: Database;
  let merchantCounter = 0;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-ledger-'));
    database = await openMigratedDatabase(`sqlite:${path.join(dir, 'ledger.db')}`);
  });
  after(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const db = () => database.db;
  /** A merchant id no other test uses: every test starts from empty accounts. */
  const newMerchant = () => `mer_unit${++merchantCounter}`;
  const account = (owner: string, kind: AccountKind, mode: AccountKey['mode'] = 'test'): AccountKey => ({
    owner,
    mode,
    currency: 'MWK',
    kind,
  });
  const movement = (
    merchantId: string,
    amountMinor: number,
    feeMinor: number,
    reference = `chg_${merchantId}_${amountMinor}`,
  ): Movement => ({ merchantId, mode: 'test', currency: 'MWK', amountMinor, feeMinor, reference });
  const inTransaction = <T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T> => db().transaction().execute(work);
  const countRows = async (table: 'ledger_transactions' | 'ledger_entries') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function fundedMerchant(mainMinor: number): Promise<string> {
    const merchantId = newMerchant();
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, mainMinor, 0), Date.now()));
    await settleCollections(db(), Date.now());
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), mainMinor);
    return merchantId;
  }

  test('a balanced posting writes its entries and moves every balance it touches', async () => {
    const merchantId = newMerchant();
    const feesBefore = await balanceOf(db(), account(SYSTEM, 'fees'));
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 1000_00, 30_00), Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'collection')), 970_00);
    assert.equal((await balanceOf(db(), account(SYSTEM, 'fees'))) - feesBefore, 30_00);
    assert.ok((await balanceOf(db(), account(SYSTEM, 'external'))) <= -1000_00, 'a system account may go below zero');
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), {
      mainMinor: 0,
      collectionMinor: 970_00,
    });
    assert.deepEqual(
      await merchantBalances(db(), merchantId, 'live', 'MWK'),
      { mainMinor: 0, collectionMinor: 0 },
      'live is another ledger',
    );
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('an unbalanced posting throws and writes nothing', async () => {
    const merchantId = newMerchant();
    const [transactions, entries] = [await countRows('ledger_transactions'), await countRows('ledger_entries')];
    await assert.rejects(
      inTransaction((trx) =>
        post(
          trx,
          { mode: 'test', kind: 'collection', reference: 'chg_unbalanced' },
          [
            { account: account(SYSTEM, 'external'), amountMinor: -1000 },
            { account: account(merchantId, 'collection'), amountMinor: 999 },
          ],
          Date.now(),
        ),
      ),
      /unbalanced ledger transaction \(collection\): entries sum to -1/,
    );
    await assert.rejects(
      inTransaction((trx) =>
        post(
          trx,
          { mode: 'test', kind: 'settlement', reference: null },
          [{ account: account(merchantId, 'main'), amountMinor: 1 }],
          Date.now(),
        ),
      ),
      /unbalanced/,
    );
    assert.equal(await countRows('ledger_transactions'), transactions);
    assert.equal(await countRows('ledger_entries'), entries);
    assert.equal(await balanceOf(db(), account(merchantId, 'collection')), 0);
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('a merchant account cannot go negative: InsufficientFunds, and the whole transaction rolls back', async () => {
    const merchantId = await fundedMerchant(970_00);
    const [transactions, entries] = [await countRows('ledger_transactions'), await countRows('ledger_entries')];
    // 961.00 + 9.61 is more than 970.00.
    await assert.rejects(
      inTransaction((trx) => reservePayout(trx, movement(merchantId, 961_00, 9_61), Date.now())),
      InsufficientFunds,
    );
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), 970_00);
    assert.equal(await balanceOf(db(), account(merchantId, 'payout_reserve')), 0);
    assert.equal(await countRows('ledger_transactions'), transactions, 'the refused transaction left no row');
    assert.equal(await countRows('ledger_entries'), entries);
    for (const kind of ['collection', 'main', 'payout_reserve'] as const) {
      await assert.rejects(
        inTransaction((trx) =>
          post(
            trx,
            { mode: 'test', kind: 'settlement', reference: null },
            [
              { account: account(merchantId, kind), amountMinor: -(970_00 + 1) },
              { account: account(SYSTEM, 'external'), amountMinor: 970_00 + 1 },
            ],
            Date.now(),
          ),
        ),
        InsufficientFunds,
        `${kind} is guarded`,
      );
    }
    // Exactly the balance is allowed, down to zero.
    await inTransaction((trx) => reservePayout(trx, movement(merchantId, 960_40, 9_60), Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), 0);
    assert.equal(await balanceOf(db(), account(merchantId, 'payout_reserve')), 970_00);
    await assert.rejects(
      inTransaction((trx) => reservePayout(trx, movement(merchantId, 1, 0), Date.now())),
      InsufficientFunds,
    );
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('an InsufficientFunds inside a larger transaction rolls back the other writes too', async () => {
    const merchantId = newMerchant();
    await assert.rejects(
      inTransaction(async (trx) => {
        await creditCollection(trx, movement(merchantId, 500_00, 0, 'chg_first'), Date.now());
        await reservePayout(trx, movement(merchantId, 1_00, 0, 'chg_second'), Date.now());
      }),
      InsufficientFunds,
    );
    assert.equal(await balanceOf(db(), account(merchantId, 'collection')), 0, 'the credit before it was rolled back');
    const rows = await db()
      .selectFrom('ledger_transactions')
      .select('id')
      .where('reference', 'in', ['chg_first', 'chg_second'])
      .execute();
    assert.deepEqual(rows, []);
  });

  test('a payout reserves amount plus fee, then pays it out or releases it', async () => {
    const merchantId = await fundedMerchant(2000_00);
    const feesBefore = await balanceOf(db(), account(SYSTEM, 'fees'));
    const paid = movement(merchantId, 1000_00, 10_00, 'chg_paid');
    await inTransaction((trx) => reservePayout(trx, paid, Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), 990_00);
    assert.equal(await balanceOf(db(), account(merchantId, 'payout_reserve')), 1010_00);
    await inTransaction((trx) => completePayout(trx, paid, Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'payout_reserve')), 0);
    assert.equal((await balanceOf(db(), account(SYSTEM, 'fees'))) - feesBefore, 10_00);
    const failed = movement(merchantId, 500_00, 5_00, 'chg_failed');
    await inTransaction((trx) => reservePayout(trx, failed, Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), 485_00);
    await inTransaction((trx) => releasePayout(trx, failed, Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'main')), 990_00);
    assert.equal(await balanceOf(db(), account(merchantId, 'payout_reserve')), 0);
    // A release without its reservation would take the reserve below zero.
    await assert.rejects(
      inTransaction((trx) => releasePayout(trx, failed, Date.now())),
      InsufficientFunds,
    );
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('settlement moves each collection balance to main, once', async () => {
    const merchantId = newMerchant();
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 300_00, 9_00), Date.now()));
    assert.ok((await settleCollections(db(), Date.now())) >= 1);
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), {
      mainMinor: 291_00,
      collectionMinor: 0,
    });
    assert.equal(await settleCollections(db(), Date.now()), 0, 'nothing is left to settle');
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), {
      mainMinor: 291_00,
      collectionMinor: 0,
    });
  });

  test('a collection settled at once (test mode, TEST_SETTLEMENT=immediate) credits the main balance net of its fee', async () => {
    const merchantId = newMerchant();
    const feesBefore = await balanceOf(db(), account(SYSTEM, 'fees'));
    await inTransaction((trx) =>
      creditCollection(trx, movement(merchantId, 300_00, 9_00), Date.now(), { settledAtOnce: true }),
    );
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), {
      mainMinor: 291_00,
      collectionMinor: 0,
    });
    assert.equal((await balanceOf(db(), account(SYSTEM, 'fees'))) - feesBefore, 9_00);
    assert.deepEqual(await checkLedger(db()), []);
  });

  test("settlement of one mode leaves the other mode's collections where they are", async () => {
    const merchantId = newMerchant();
    const live = { ...movement(merchantId, 500_00, 15_00, `chg_${merchantId}_live`), mode: 'live' as const };
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 300_00, 9_00), Date.now()));
    await inTransaction((trx) => creditCollection(trx, live, Date.now()));
    assert.ok((await settleCollections(db(), Date.now(), 'test')) >= 1);
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), {
      mainMinor: 291_00,
      collectionMinor: 0,
    });
    assert.deepEqual(await merchantBalances(db(), merchantId, 'live', 'MWK'), {
      mainMinor: 0,
      collectionMinor: 485_00,
    });
    assert.ok((await settleCollections(db(), Date.now(), 'live')) >= 1);
    assert.deepEqual(await merchantBalances(db(), merchantId, 'live', 'MWK'), {
      mainMinor: 485_00,
      collectionMinor: 0,
    });
  });

  test("a refund giving back the fee's share takes the rest from the balance, and the fees account pays the share when it goes out", async () => {
    const merchantId = newMerchant();
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 1000_00, 30_00), Date.now()));
    const feesBefore = await balanceOf(db(), account(SYSTEM, 'fees'));
    const externalBefore = await balanceOf(db(), account(SYSTEM, 'external'));
    const refund = movement(merchantId, 1000_00, 30_00, `rfd_${merchantId}`);
    assert.equal(await inTransaction((trx) => refundableBalance(trx, refund, Date.now())), 970_00);
    await inTransaction((trx) => reserveRefund(trx, refund, Date.now()));
    assert.deepEqual(await merchantBalances(db(), merchantId, 'test', 'MWK'), { mainMinor: 0, collectionMinor: 0 });
    assert.equal(await balanceOf(db(), account(merchantId, 'refunds_due')), 970_00, 'what the merchant gave');
    await inTransaction((trx) => completeRefund(trx, refund, Date.now()));
    assert.equal(await balanceOf(db(), account(merchantId, 'refunds_due')), 0);
    assert.equal((await balanceOf(db(), account(SYSTEM, 'fees'))) - feesBefore, -30_00, 'the fee went back');
    assert.equal(
      (await balanceOf(db(), account(SYSTEM, 'external'))) - externalBefore,
      1000_00,
      'the whole payment went back out',
    );
    await assert.rejects(
      inTransaction((trx) => reserveRefund(trx, movement(merchantId, 10_00, 0, `rfd_${merchantId}_2`), Date.now())),
      InsufficientFunds,
      'nothing left to take it from',
    );
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('checkLedger reports a transaction whose entries do not sum to zero', async () => {
    const merchantId = newMerchant();
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 100_00, 0), Date.now()));
    const collection = await db()
      .selectFrom('ledger_accounts')
      .select('id')
      .where('owner', '=', merchantId)
      .where('kind', '=', 'collection')
      .executeTakeFirstOrThrow();
    const now = Date.now();
    // Written straight to the tables, as a buggy writer would: one entry, and the balance kept in step with it.
    await db()
      .insertInto('ledger_transactions')
      .values({ id: 'ltx_unit_unbalanced', mode: 'test', kind: 'collection', reference: 'chg_bad', created_at: now })
      .execute();
    await db()
      .insertInto('ledger_entries')
      .values({ transaction_id: 'ltx_unit_unbalanced', account_id: collection.id, amount_minor: 500 })
      .execute();
    await db()
      .updateTable('ledger_accounts')
      .set((eb) => ({ balance_minor: eb('balance_minor', '+', 500) }))
      .where('id', '=', collection.id)
      .execute();
    try {
      assert.deepEqual(await checkLedger(db()), ['transaction ltx_unit_unbalanced sums to 500, not 0']);
    } finally {
      await db().deleteFrom('ledger_entries').where('transaction_id', '=', 'ltx_unit_unbalanced').execute();
      await db().deleteFrom('ledger_transactions').where('id', '=', 'ltx_unit_unbalanced').execute();
      await db()
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance_minor: eb('balance_minor', '-', 500) }))
        .where('id', '=', collection.id)
        .execute();
    }
    assert.deepEqual(await checkLedger(db()), []);
  });

  test('checkLedger reports a balance that no longer equals the sum of its entries', async () => {
    const merchantId = newMerchant();
    await inTransaction((trx) => creditCollection(trx, movement(merchantId, 100_00, 3_00), Date.now()));
    const collection = await db()
      .selectFrom('ledger_accounts')
      .select('id')
      .where('owner', '=', merchantId)
      .where('kind', '=', 'collection')
      .executeTakeFirstOrThrow();
    await db().updateTable('ledger_accounts').set({ balance_minor: 1 }).where('id', '=', collection.id).execute();
    try {
      assert.deepEqual(await checkLedger(db()), [`account ${collection.id} has balance 1 but its entries sum to 9700`]);
    } finally {
      await db().updateTable('ledger_accounts').set({ balance_minor: 97_00 }).where('id', '=', collection.id).execute();
    }
    assert.deepEqual(await checkLedger(db()), []);
  });
});
