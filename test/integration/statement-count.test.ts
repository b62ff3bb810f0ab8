import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { prepared, preparedInsert } from '../../src/db/prepared.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { call, startTestGateway, TEST_SERVER_ENV, type TestGateway } from '../helpers/gateway.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { sessionBody } from '../../bench/requests.ts';
import { claimDueDeliveries } from '../../src/events/delivery-repository.ts';
import { loadConfig } from '../../src/config.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { refreshCharge } from '../../src/core/charge-completion.ts';

const STATEMENTS = 'lipira_database_statements_total';

const readState = prepared((db, key: string) => db.selectFrom('app_state').select('value').where('key', '=', key));
const insertState = preparedInsert('app_state');

/** How many statements `work` sent through the database. */
async function statementsOf(database: Database, work: () => Promise<unknown>): Promise<number> {
  const before = database.statements.sent;
  await work();
  return database.statements.sent - before;
}

for (const kind of DATABASE_KINDS) {
  describe(`statements counted on ${kind}`, () => {
    let file: TestDatabase;
    let database: Database;

    before(async () => {
      file = freshDatabase(kind);
      database = await openMigratedDatabase(file.url);
    });
    after(async () => {
      await database.close();
      await file.drop();
    });

    test('a query built by Kysely is one statement', async () => {
      assert.equal(await statementsOf(database, () => sql`select 1`.execute(database.db)), 1);
    });

    // On SQLite a prepared read outside a transaction runs on the connection, not through Kysely.
    test('a prepared read is one statement', async () => {
      assert.equal(await statementsOf(database, () => readState(database.db, 'absent')), 1);
    });

    // On SQLite the transaction's prepared statements run on the connection it holds.
    test('a transaction counts its BEGIN and COMMIT beside its statements', async () => {
      const sent = await statementsOf(database, () =>
        database.transact(async (trx) => {
          await insertState(trx, { key: `statement-count-${kind}`, value: 'x' });
          await readState(trx, `statement-count-${kind}`);
        }),
      );
      assert.equal(sent, 4);
    });
  });

  describe(`${STATEMENTS} on ${kind}`, () => {
    let gw: TestGateway;

    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    test('/metrics shows the statements sent so far, as a counter', async () => {
      const { statements } = gw.gateway.database;
      await sql`select 1`.execute(gw.gateway.database.db);
      // The scrape itself reads the queues, and the workers poll meanwhile: the figure shown lies between.
      const before = statements.sent;
      const response = await call(gw.url, '/metrics');
      const after = statements.sent;
      assert.equal(response.status, 200, response.text);
      assert.match(response.text, new RegExp(`^# TYPE ${STATEMENTS} counter$`, 'm'));
      const shown = Number(new RegExp(`^${STATEMENTS} (\\S+)$`, 'm').exec(response.text)?.[1]);
      assert.ok(before > 0 && shown >= before && shown <= after, `${shown} between ${before} and ${after}`);
    });
  });
}

const GATEWAY_ENV = { WORKERS: 'off', SANDBOX_MOBILE_DELAY: '1s' };

/**
 * Issue 33: a hosted mobile money payment on PostgreSQL, story by story, so that what was taken
 * out cannot silently grow back. The workers are off, so nothing but the request runs; the status
 * poll after the sandbox's delay completes the charge itself, through the story the settler runs
 * (`refreshCharge`): the completion's transaction is what the settler sends, plus the poll's reads.
 */
describe('statements a payment, by story, on postgres', { skip: !DATABASE_KINDS.includes('postgres') }, () => {
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway('postgres', GATEWAY_ENV);
  });
  after(() => gw.close());

  /** `work`'s result and the statements sent while it ran. */
  async function counted<T>(work: () => Promise<T>): Promise<[T, number]> {
    const { database } = gw.gateway;
    const before = database.statements.sent;
    const out = await work();
    return [out, database.statements.sent - before];
  }

  async function request(path: string, init: RequestInit = {}) {
    const response = await fetch(gw.url + path, { redirect: 'manual', ...init });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** A session paid for by mobile money on its hosted page, up to the attempt the provider took. */
  async function startPayment(merchant: MerchantCredentials, txRef: string) {
    const key = { authorization: `Bearer ${merchant.test_secret_key}`, 'content-type': 'application/json' };
    const [created, create] = await counted(() =>
      request('/payment', { method: 'POST', headers: key, body: sessionBody(txRef) }),
    );
    assert.equal(created.status, 201, created.text);
    const pagePath = new URL((JSON.parse(created.text) as { data: { checkout_url: string } }).data.checkout_url)
      .pathname;
    const [page, pageRead] = await counted(() => request(pagePath));
    const cookie = /^lipira_csrf=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const [posted, start] = await counted(() =>
      request(`${pagePath}/pay/mobile-money`, {
        method: 'POST',
        headers: { cookie, origin: gw.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, mobile: '0990000000', operator: 'airtel' }).toString(),
      }),
    );
    assert.equal(posted.status, 303, posted.text);
    return { key, cookie, attemptPath: posted.headers.get('location')!, create, pageRead, start };
  }

  /** One payment's statements, story by story. */
  async function pay(merchant: MerchantCredentials, txRef: string) {
    const { key, cookie, attemptPath, create, pageRead, start } = await startPayment(merchant, txRef);
    const [pending, pendingPoll] = await counted(() => request(`${attemptPath}/status`, { headers: { cookie } }));
    assert.equal(pending.status, 200, pending.text);
    await sleep(1_100);
    const [settled, completion] = await counted(() => request(`${attemptPath}/status`, { headers: { cookie } }));
    assert.equal(settled.status, 200, settled.text);
    const [verified, verify] = await counted(() => request(`/verify-payment/${txRef}`, { headers: key }));
    assert.match(verified.text, /"status":"success"/);

    return { create, pageRead, start, pendingPoll, completion, verify };
  }

  /** A merchant whose payments' events are one statement with their webhook delivery, and send no receipts. */
  async function webhookMerchant(): Promise<MerchantCredentials> {
    const merchant = await gw.newMerchant();
    await updateMerchantSettings(
      gw.gateway.database.db,
      merchant.id,
      { webhookUrl: 'https://shop.example.com/hook', receiptsEnabled: false },
      Date.now(),
    );
    return merchant;
  }

  // The first payment also opens the ledger's accounts it credits: the second is measured.
  test('create, page, attempt, poll, completion and verify stay within their counts', async (t) => {
    const merchant = await webhookMerchant();
    await pay(merchant, 'statements-first');
    const counts = await pay(merchant, 'statements-second');
    const { create, pageRead, start, pendingPoll, completion, verify } = counts;
    t.diagnostic(JSON.stringify(counts));
    // Before issue 33's changes: create 2, page 1, start 13, poll 2, completion by a poll 3 + 17, verify 3.
    // The bounds are what a payment sends now.
    assert.ok(create <= 2, JSON.stringify(counts));
    assert.ok(pageRead <= 1, JSON.stringify(counts));
    // The page's read of the session, the slot's claim with the charge, the provider's answer recorded:
    // each one statement, atomic by itself (was 9 with two transactions).
    assert.ok(start <= 3, JSON.stringify(counts));
    // The session with its merchant and the attempt, in one statement.
    assert.ok(pendingPoll <= 1, JSON.stringify(counts));
    // The poll's read (1, and the session again after), the completion's transaction (BEGIN … COMMIT, 9:
    // was 10, before the session's lock read the merchant too).
    assert.ok(completion <= 11, JSON.stringify(counts));
    // The key's lookup, and the session with its logs and the charge that paid it in one statement.
    assert.ok(verify <= 2, JSON.stringify(counts));
  });

  // The webhook worker's claim of the payments' deliveries (its workers are off here): the
  // listing that finds them due, then the claim and their read in one statement (was 1 + 5).
  test("the webhook worker's claim stays within its count", async (t) => {
    const { database } = gw.gateway;
    const before = database.statements.sent;
    const claimed = await claimDueDeliveries(database, Date.now(), 60_000, 10);
    const claim = database.statements.sent - before;
    t.diagnostic(`claim: ${claim}`);
    assert.equal(claimed.length, 2);
    assert.ok(claimed.every((delivery) => delivery.payload.includes('"status":"success"') && delivery.secret));
    assert.ok(claim <= 2, String(claim));
  });

  // About a fifth of payments are completed twice at once, by the settler and a status poll that
  // both found the charge due: the one that loses waits for the other's lock, then finds the
  // charge ended. Before: BEGIN, the lock, the merchant, an update matching nothing, the charge
  // read again, COMMIT (6, and 10 + 6 for the pair; measured).
  test('a completion another one got to first stays within its count', async (t) => {
    const merchant = await webhookMerchant();
    await pay(merchant, 'statements-race-first');
    const { attemptPath } = await startPayment(merchant, 'statements-race');
    const chargeId = new URL(attemptPath, gw.url).pathname.split('/').pop()!;
    const { database } = gw.gateway;
    const due = await database.db
      .selectFrom('charges')
      .selectAll()
      .where('charge_id', '=', chargeId)
      .executeTakeFirstOrThrow();
    await sleep(1_100);
    const deps = paymentDeps(loadConfig({ ...TEST_SERVER_ENV, ...GATEWAY_ENV }), database);
    const [raced, pair] = await counted(() =>
      Promise.all([refreshCharge(deps, due, Date.now()), refreshCharge(deps, due, Date.now())]),
    );
    const [late, lateOne] = await counted(() => refreshCharge(deps, due, Date.now()));
    t.diagnostic(JSON.stringify({ pair, late: lateOne }));
    assert.equal(raced[0].status, 'success');
    assert.deepEqual(raced[1], raced[0], 'the loser answers the charge as the winner left it');
    assert.deepEqual(late, raced[0]);
    // The winner's transaction (9, as the poll's completion above), and the loser's BEGIN, lock and COMMIT.
    assert.ok(pair <= 9 + 3, String(pair));
    assert.ok(lateOne <= 3, String(lateOne));
  });
});
