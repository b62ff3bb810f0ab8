import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createSession } from '../../src/checkout/checkout-service.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import type { Principal } from '../../src/merchants/merchant-service.ts';
import { findCharge, findSessionCharge, insertChargeIfNew, type Charge } from '../../src/core/charge-repository.ts';
import {
  claimAttemptSlot,
  findPageSession,
  findPageSessionWithAttempt,
  findSessionByTxRef,
  findSessionToVerify,
  markPaid,
  type CheckoutSession,
} from '../../src/core/session-repository.ts';
import { ids } from '../../src/shared/ids.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { fakeClock } from '../helpers/clock.ts';

/**
 * A charge read joined to its session (src/core/joined-charge.ts) must be the charge a read of
 * `charges` alone gives, type for type: each driver answers bigint, text and null columns in its
 * own way, and the pages and verification show these values.
 */
for (const kind of DATABASE_KINDS) {
  describe(`a charge read with its session is the charge read alone, on ${kind}`, () => {
    let file: TestDatabase;
    let database: Database;
    let owner: Principal;
    let session: CheckoutSession;
    let other: CheckoutSession;
    let full: Charge;
    let sparse: Charge;
    let othersAttempt: Charge;
    const now = Date.now();

    async function openSession(): Promise<CheckoutSession> {
      const deps = { db: database.db, transact: database.transact, clock: fakeClock(now), checkoutTtlMs: 60_000 };
      return createSession({ ...deps, liveRoutes: {} }, owner, {
        generation: 'current',
        amount: 1000,
        currency: 'MWK',
        first_name: 'Ada',
      });
    }

    /** A card attempt with every column that can hold a value holding one, or as few as can. */
    function attempt(of: CheckoutSession, filled: boolean): Charge {
      const value = <T>(given: T): T | null => (filled ? given : null);
      return {
        id: ids.chargeRef(),
        merchant_id: of.merchant_id,
        mode: 'test',
        charge_id: ids.attemptChargeId(),
        ref_id: ids.reference(),
        session_id: of.id,
        kind: 'payment',
        channel: 'card',
        operator: value('airtel'),
        mobile: value('+265990xxxx00'),
        card_brand: value('visa'),
        card_number: value('424242******4242'),
        card_expiry: value('12/30'),
        status: 'pending',
        next_action: value('otp'),
        failure_reason: value('Declined'),
        failure_code: value('declined'),
        provider_state: value('{"step":1}'),
        check_at: value(now + 5_000),
        callback_asked_at: value(now + 1),
        review_reason: value('No answer'),
        amount_minor: 1000_00,
        currency: 'MWK',
        fee_minor: 300,
        first_name: value('Ada'),
        last_name: value('Lovelace'),
        email: value('ada@example.com'),
        trans_id: value('T-1'),
        attempts: 1,
        created_at: now,
        completed_at: value(now + 2),
        updated_at: now,
        request_hash: value('hash'),
        type: value('API Payment (Checkout)'),
        refunded_minor: 0,
      };
    }

    before(async () => {
      file = freshDatabase(kind);
      database = await openMigratedDatabase(file.url);
      const merchant = await createMerchant(
        database.db,
        { name: 'Joined', email: 'joined@example.com', webhookUrl: null, feeBasisPoints: 300 },
        now,
      );
      owner = { merchantId: merchant.id, mode: 'test' };
      session = await openSession();
      other = await openSession();
      full = attempt(session, true);
      sparse = attempt(session, false);
      othersAttempt = attempt(other, true);
      for (const charge of [full, sparse, othersAttempt]) assert.ok(await insertChargeIfNew(database.db, charge));
    });
    after(async () => {
      await database.close();
      await file.drop();
    });

    test("an attempt's page reads the page session and the charge as their own reads give them", async () => {
      const pageSession = await findPageSession(database.db, session.id);
      for (const charge of [full, sparse]) {
        const joined = await findPageSessionWithAttempt(database.db, session.id, charge.charge_id);
        const alone = await findSessionCharge(database.db, session.id, charge.charge_id);
        assert.deepStrictEqual(joined, { session: pageSession, charge: alone });
        assert.deepStrictEqual(Object.keys(joined!.session), Object.keys(pageSession!));
        assert.deepStrictEqual(Object.keys(joined!.charge!), Object.keys(alone!));
      }
    });

    test('an attempt of another session, or none, is no charge; an unknown session is nothing', async () => {
      assert.ok(await findSessionCharge(database.db, other.id, othersAttempt.charge_id));
      assert.deepStrictEqual(await findPageSessionWithAttempt(database.db, session.id, othersAttempt.charge_id), {
        session: await findPageSession(database.db, session.id),
        charge: undefined,
      });
      assert.equal(await findPageSessionWithAttempt(database.db, 'no-such-session', full.charge_id), undefined);
    });

    test('a verification reads the session, its logs and the charge that paid it as their own reads give them', async () => {
      const unpaid = await findSessionToVerify(database.db, owner, session.tx_ref);
      const logs = [{ type: 'log', message: 'Checkout session created', created_at: now }];
      assert.deepStrictEqual(unpaid, {
        session: { ...(await findSessionByTxRef(database.db, owner, session.tx_ref)), logs },
        payment: null,
      });
      assert.ok(await claimAttemptSlot(database.db, session.id, full.id, now));
      assert.ok(await markPaid(database.db, session.id, full.id, 300, now));
      const paid = await findSessionToVerify(database.db, owner, session.tx_ref);
      assert.deepStrictEqual(paid, {
        session: { ...(await findSessionByTxRef(database.db, owner, session.tx_ref)), logs },
        payment: await findCharge(database.db, full.id),
      });
      assert.deepStrictEqual(Object.keys(paid!.payment!), Object.keys((await findCharge(database.db, full.id))!));
    });
  });
}
