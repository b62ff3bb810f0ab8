import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Migrator } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { coreMigration } from '../../src/db/migrations/0001_core.ts';
import { paymentsMigration } from '../../src/db/migrations/0002_payments.ts';
import { deliveriesMigration } from '../../src/db/migrations/0003_deliveries.ts';
import { ledgerMigration } from '../../src/db/migrations/0004_ledger.ts';
import { sessionStatusIndexMigration } from '../../src/db/migrations/0005_session_status_index.ts';
import { attemptSlotAndRefundsMigration } from '../../src/db/migrations/0007_attempt_slot_and_refunds.ts';
import { checkLedger, completeRefund, reserveRefund } from '../../src/ledger/ledger-service.ts';
import { createMerchant, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { findCharge } from '../../src/core/charge-repository.ts';
import { completeDirectCharge } from '../../src/payments/direct-charges.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { refundPayment } from '../../src/refunds/refund-service.ts';
import { ids, asChargeRef } from '../../src/shared/ids.ts';
import { recordDirectPayment } from '../helpers/direct-charges.ts';
import { insertOldMerchant } from '../helpers/old-databases.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { uniqueRef } from '../helpers/fixtures.ts';
import { AIRTEL_REF, TEST_NUMBERS } from '../helpers/mobile-money.ts';

/** A successful direct charge of MWK 1,000 recorded through the payment services; its row. */
async function paidCharge(database: Database, merchant: MerchantCredentials) {
  const request = {
    mobile: TEST_NUMBERS.airtelSuccess,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount: 1000,
    charge_id: uniqueRef('charge'),
  };
  const charge = await recordDirectPayment(database, { merchantId: merchant.id, mode: 'test' }, request);
  return (await completeDirectCharge(
    paymentDeps(loadConfig({}), database),
    charge,
    {
      status: 'success',
      transId: 'sandbox',
    },
    Date.now(),
  ))!;
}

for (const kind of DATABASE_KINDS) {
  describe(`refunds and the ledger check on ${kind} (throwaway databases)`, () => {
    test('the check finds a refund total out of step with its refunds and a merchant refund reserved twice; the database refuses a total above what was paid', async () => {
      const throwaway = freshDatabase(kind);
      const database = await openDatabase(throwaway.url);
      try {
        await migrateToLatest(database);
        const { db } = database;
        const merchant = await createMerchant(
          db,
          {
            name: 'Throwaway',
            email: 'x@example.com',
            webhookUrl: null,
            feeBasisPoints: 300,
          },
          Date.now(),
        );
        const charge = await paidCharge(database, merchant);
        const refund = await refundPayment(
          paymentDeps(loadConfig({}), database),
          { merchantId: merchant.id, mode: 'test' },
          { chargeId: charge.charge_id },
          { amount: 100 },
        );
        assert.deepEqual(await checkLedger(db), []);

        await db.updateTable('charges').set({ refunded_minor: 50_00 }).where('id', '=', charge.id).execute();
        assert.deepEqual(await checkLedger(db), [
          `charge ${charge.id} (success) shows 5000 refunded, but its refunds count 10000`,
        ]);
        await db.updateTable('charges').set({ refunded_minor: 100_00 }).where('id', '=', charge.id).execute();

        await assert.rejects(
          db.updateTable('charges').set({ refunded_minor: 1000_01 }).where('id', '=', charge.id).execute(),
          /CHECK constraint|check constraint/i,
        );
        assert.equal((await findCharge(db, charge.id))!.refunded_minor, 100_00);

        const movement = {
          merchantId: merchant.id,
          mode: 'test' as const,
          currency: 'MWK',
          amountMinor: 100_00,
          feeMinor: 0,
          reference: refund.id,
        };
        await db.transaction().execute((trx) => reserveRefund(trx, movement, Date.now()));
        assert.equal(refund.fee_returned_minor, 3_00, "the fee's share of the 100 refunded (3 %)");
        assert.deepEqual(await checkLedger(db), [
          `merchant refund ${refund.id} (pending) reserved 2 times (19700 in all) and released 0 times`,
        ]);
      } finally {
        await database.close();
        await throwaway.drop();
      }
    });

    test('the check finds a waiting refund that took money, a refund that took other than its fee share from the fees account, and a payment given back more than its fee', async () => {
      const throwaway = freshDatabase(kind);
      const database = await openDatabase(throwaway.url);
      try {
        await migrateToLatest(database);
        const { db } = database;
        const merchant = await createMerchant(
          db,
          { name: 'Throwaway', email: 'x@example.com', webhookUrl: null, feeBasisPoints: 300 },
          Date.now(),
        );
        const owner = { merchantId: merchant.id, mode: 'test' as const };
        const keepsFee = paymentDeps(loadConfig({ REFUND_RETURNS_FEE: 'off' }), database);
        const waiting = await refundPayment(
          keepsFee,
          owner,
          { chargeId: (await paidCharge(database, merchant)).charge_id },
          {},
        );
        assert.notEqual(waiting.pending_reason, null, 'the 970 the payment left cannot cover 1,000');
        assert.deepEqual(await checkLedger(db), []);

        const movement = (refund: typeof waiting) => ({
          merchantId: merchant.id,
          mode: 'test' as const,
          currency: 'MWK',
          amountMinor: refund.amount_minor,
          feeMinor: refund.fee_returned_minor,
          reference: refund.id,
        });
        await db
          .transaction()
          .execute((trx) => reserveRefund(trx, { ...movement(waiting), amountMinor: 900_00 }, Date.now()));
        assert.deepEqual(await checkLedger(db), [
          `merchant refund ${waiting.id} (pending, waiting for the balance) reserved 1 times (90000 in all) and released 0 times`,
        ]);
        await db.updateTable('refunds').set({ pending_reason: null }).where('id', '=', waiting.id).execute();
        await db
          .transaction()
          .execute((trx) =>
            completeRefund(trx, { ...movement(waiting), feeMinor: 100_00, amountMinor: 1000_00 }, Date.now()),
          );
        await db.updateTable('refunds').set({ status: 'success' }).where('id', '=', waiting.id).execute();
        assert.deepEqual(await checkLedger(db), [
          `merchant refund ${waiting.id} (success) reserved 1 times (90000 in all) and released 0 times`,
          `refund ${waiting.id} took 10000 from the fees account, not its fee share of 0`,
        ]);
        await db.updateTable('refunds').set({ fee_returned_minor: 100_00 }).where('id', '=', waiting.id).execute();
        const charge = (await findCharge(db, waiting.charge_ref))!;
        assert.deepEqual(await checkLedger(db), [`charge ${charge.id} had 10000 of its fee of 3000 given back`]);
      } finally {
        await database.close();
        await throwaway.drop();
      }
    });

    test('upgrading to migration 0009 counts the refunds already given on their charges', async () => {
      const throwaway = freshDatabase(kind);
      const database = await openDatabase(throwaway.url);
      try {
        const before0009 = new Migrator({
          db: database.db,
          provider: {
            getMigrations: async () => ({
              '0001_core': coreMigration(database.dialect),
              '0002_payments': paymentsMigration,
              '0003_deliveries': deliveriesMigration(database.dialect),
              '0004_ledger': ledgerMigration(database.dialect),
              '0005_session_status_index': sessionStatusIndexMigration,
              '0007_attempt_slot_and_refunds': attemptSlotAndRefundsMigration,
            }),
          },
        });
        assert.equal((await before0009.migrateToLatest()).error, undefined);
        const { db } = database;
        const now = Date.now();
        const merchant = { id: await insertOldMerchant(db, ids.webhookSecret(), now) };
        const charge = (id: string, amountMinor: number) => ({
          id: asChargeRef(id),
          merchant_id: merchant.id,
          mode: 'test' as const,
          charge_id: uniqueRef('old'),
          ref_id: ids.reference(),
          session_id: null,
          kind: 'payment' as const,
          channel: 'mobile_money' as const,
          operator: 'airtel' as const,
          mobile: '+265990xxxx00',
          card_brand: null,
          card_number: null,
          card_expiry: null,
          status: 'success' as const,
          next_action: null,
          failure_reason: null,
          provider_state: null,
          check_at: null,
          amount_minor: amountMinor,
          currency: 'MWK',
          fee_minor: 0,
          first_name: null,
          last_name: null,
          email: null,
          trans_id: null,
          attempts: 1,
          created_at: now,
          completed_at: now,
          updated_at: now,
        });
        await db
          .insertInto('charges')
          .values([
            charge('chg_refunded', 1000_00),
            charge('chg_failed_refund', 500_00),
            charge('chg_untouched', 700_00),
          ])
          .execute();
        const refund = (chargeRef: string, status: 'success' | 'failed') => ({
          id: ids.refundRow(),
          refund_id: ids.refund(),
          merchant_id: merchant.id,
          mode: 'test' as const,
          charge_ref: asChargeRef(chargeRef),
          source: 'uncounted' as const,
          amount_minor: chargeRef === 'chg_refunded' ? 1000_00 : 500_00,
          currency: 'MWK',
          status,
          reason: null,
          failure_reason: null,
          provider_state: null,
          check_at: null,
          created_at: now,
          completed_at: now,
          updated_at: now,
        });
        await db
          .insertInto('refunds')
          .values([refund('chg_refunded', 'success'), refund('chg_failed_refund', 'failed')])
          .execute();

        const applied = await migrateToLatest(database);
        assert.ok(applied.includes('0009_refund_totals'), applied.join(', '));
        const totals = await db.selectFrom('charges').select(['id', 'refunded_minor']).orderBy('id').execute();
        assert.deepEqual(
          totals.map((row) => [row.id, Number(row.refunded_minor)]),
          [
            ['chg_failed_refund', 500_00],
            ['chg_refunded', 1000_00],
            ['chg_untouched', 0],
          ],
          "money held for an uncounted refund stays counted even when the refund failed: it is the customer's",
        );
      } finally {
        await database.close();
        await throwaway.drop();
      }
    });
  });
}
