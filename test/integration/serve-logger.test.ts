import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Insertable } from 'kysely';
import pino from 'pino';
import { serveLogger } from '../../src/cli/serve-logger.ts';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { CheckoutSessionsTable } from '../../src/db/schema.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { ids } from '../../src/shared/ids.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';

const CUSTOMER_EMAIL = 'chikondi.private@example.com';
const CUSTOMER_NAME = 'Chikondi-Private';

/** The error `work` fails with: a real one, from the real database. */
async function failureOf(work: () => Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await work();
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected the database to refuse');
}

/** What `lipira serve`'s logger writes for the error, as the gateway logs one: one JSON line. */
function loggedLine(error: unknown): { text: string; err: Record<string, unknown> } {
  const lines: string[] = [];
  serveLogger('info', { write: (line: string) => lines.push(line) }).error({ err: error }, 'unexpected error');
  assert.equal(lines.length, 1);
  return { text: lines[0]!, err: JSON.parse(lines[0]!).err };
}

for (const kind of DATABASE_KINDS) {
  describe(`database errors in the serving log on ${kind}`, () => {
    const file: TestDatabase = freshDatabase(kind);
    let database: Database;
    let session: Insertable<CheckoutSessionsTable>;
    before(async () => {
      database = await openMigratedDatabase(file.url);
      const merchant = await createMerchant(
        database.db,
        {
          name: 'Log Shop',
          email: 'shop@example.com',
          webhookUrl: null,
          feeBasisPoints: 300,
        },
        Date.now(),
      );
      const now = Date.now();
      session = {
        id: ids.checkoutToken(Date.now()),
        merchant_id: merchant.id,
        mode: 'test',
        generation: 'current',
        tx_ref: 'log-1',
        reference: '12345678901',
        status: 'pending',
        amount_minor: 100_000,
        currency: 'MWK',
        first_name: CUSTOMER_NAME,
        last_name: null,
        email: CUSTOMER_EMAIL,
        callback_url: 'https://shop.example.com/paid',
        return_url: 'https://shop.example.com/back',
        title: null,
        description: null,
        logo: null,
        meta: null,
        request_hash: 'h',
        attempts: 0,
        paid_charge_id: null,
        fee_minor: 0,
        expires_at: now + 60_000,
        created_at: now,
        updated_at: now,
      };
      await database.db.insertInto('checkout_sessions').values(session).execute();
    });
    after(async () => {
      await database.close();
      await file.drop();
    });

    test('a unique violation is logged with its SQLSTATE and constraint, without the key it repeats', async () => {
      const error = await failureOf(() =>
        database.db
          .insertInto('checkout_sessions')
          .values({ ...session, tx_ref: 'log-2', reference: '12345678902' })
          .execute(),
      );
      if (kind === 'postgres') {
        assert.match(String(error.detail), new RegExp(String(session.id)), 'PostgreSQL told the checkout token');
        assert.match(
          JSON.stringify(pino.stdSerializers.err(error)),
          new RegExp(String(session.id)),
          'pino on its own would log it',
        );
      }
      const { text, err } = loggedLine(error);
      assert.ok(!text.includes(String(session.id)), `the checkout token is not logged: ${text}`);
      assert.equal(err.detail, undefined);
      if (kind === 'postgres') {
        assert.equal(err.code, '23505');
        assert.equal(err.constraint, 'checkout_sessions_pkey');
        assert.equal(err.table, 'checkout_sessions');
      } else {
        assert.equal(err.code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
      }
      assert.match(String(err.message), /unique|UNIQUE/);
    });

    test('a not-null violation is logged with its SQLSTATE, table and column, without the failing row', async () => {
      const error = await failureOf(() =>
        database.db
          .insertInto('checkout_sessions')
          .values({
            ...session,
            id: ids.checkoutToken(Date.now()),
            tx_ref: 'log-3',
            reference: '12345678903',
            currency: null as unknown as string,
          })
          .execute(),
      );
      if (kind === 'postgres')
        assert.match(
          String(error.detail),
          /Failing row contains .*chikondi\.private@example\.com/,
          'PostgreSQL told the whole row',
        );
      const { text, err } = loggedLine(error);
      for (const secret of [CUSTOMER_EMAIL, CUSTOMER_NAME])
        assert.ok(!text.includes(secret), `${secret} is not logged: ${text}`);
      assert.equal(err.detail, undefined);
      assert.equal(err.where, undefined);
      if (kind === 'postgres') {
        assert.equal(err.code, '23502');
        assert.equal(err.table, 'checkout_sessions');
        assert.equal(err.column, 'currency');
      } else {
        assert.equal(err.code, 'SQLITE_CONSTRAINT_NOTNULL');
      }
    });

    test('other errors are logged as pino writes them', () => {
      const { err } = loggedLine(Object.assign(new Error('boom'), { code: 'E_SOMETHING' }));
      assert.equal(err.type, 'Error');
      assert.equal(err.message, 'boom');
      assert.equal(err.code, 'E_SOMETHING');
      assert.match(String(err.stack), /boom/);
    });
  });
}
