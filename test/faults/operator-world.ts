import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/database.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { lipira } from '../helpers/cli.ts';
import { AIRTEL_CALLBACK_SECRET, liveAirtelEnv } from '../helpers/live-airtel.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, type ApiResponse } from '../helpers/gateway.ts';
import { chargeBody, payoutBody } from '../helpers/mobile-money.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';

/**
 * Short waits, so that an outage outlasts the review deadline within seconds: first ask after
 * 100 ms, then at most every 500 ms, flagged after 2 s without a final answer.
 */
const SETTINGS = {
  LIVE_SYNC_FIRST: '100ms',
  LIVE_SYNC_MAX: '500ms',
  LIVE_REVIEW_AFTER: '2s',
  CONNECTOR_TIMEOUT: '1s',
  WORKER_INTERVAL: '50ms',
  SMTP_URL: '',
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
  RATE_LIMIT_ADDRESS_BURST: '1000000',
};

/**
 * Live Airtel Money as an operator runs it: `lipira serve` processes (several only on
 * PostgreSQL, where processes share a database) in live mode against the fake Airtel, one
 * merchant made with the CLI, and a connection of the test's own for reading what was recorded.
 */
export interface OperatorWorld {
  fake: FakeAirtel;
  servers: ServeProcess[];
  merchant: MerchantCredentials;
  database: Database;
  databaseUrl: string;
  /** SIGKILLs server `index` and starts a new one on its port. */
  crashAndRestart(index: number): Promise<void>;
}

export async function startOperatorWorld(
  t: TestContext,
  kind: 'sqlite' | 'postgres',
  processes: number,
  settings: Record<string, string> = {},
): Promise<OperatorWorld> {
  const cleanup = useCleanup(t);
  const testDb = freshDatabase(kind);
  cleanup(() => testDb.drop());
  const fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
  cleanup(() => fake.close());
  const env = { ...liveAirtelEnv(fake), ...SETTINGS, ...settings, DATABASE_URL: testDb.url };
  const migrated = await lipira(['migrate'], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const created = await lipira(
    ['merchant', 'create', '--name', 'Live Shop', '--email', 'owner@live.example', '--json'],
    env,
  );
  assert.equal(created.code, 0, created.stderr);
  const merchant = JSON.parse(created.stdout) as MerchantCredentials;
  const database = await openMigratedDatabase(testDb.url);
  cleanup(() => database.close());

  const servers: ServeProcess[] = [];
  cleanup(() => Promise.all(servers.map((server) => server.dispose())));
  for (let index = 0; index < processes; index++) servers.push(await startServe(env));
  fake.callbacksTo(`${servers[0]!.url}/callbacks/airtel`);

  return {
    fake,
    servers,
    merchant,
    database,
    databaseUrl: testDb.url,
    async crashAndRestart(index) {
      const crashed = servers[index]!;
      await crashed.crash();
      servers[index] = await startServe({ ...env, PORT: new URL(crashed.url).port });
    },
  };
}

let sequence = 0;
/** A fresh Airtel customer: the number as the merchant sends it (099…) and as Airtel is sent it (without 265, nor the 0). */
export function airtelCustomer(): { mobile: string; local: string } {
  sequence += 1;
  const local = `99${String(process.pid % 1000).padStart(3, '0')}${String(sequence).padStart(4, '0')}`;
  return { mobile: `0${local}`, local };
}

/** Asks for a live direct charge of `mobile` on `server`; the body sent and the answer. */
export async function chargeOn(
  server: ServeProcess,
  world: OperatorWorld,
  mobile: string,
  amount = 1000,
): Promise<{ chargeId: string; answer: ApiResponse }> {
  const body = chargeBody({ mobile, amount });
  const answer = await call(server.url, '/mobile-money/payments/initialize', {
    key: world.merchant.live_secret_key,
    body,
  });
  return { chargeId: String(body.charge_id), answer };
}

/**
 * A customer paying a live checkout session by mobile money through the hosted page on `server`:
 * the attempt's charge_id and the path its page polls for the outcome.
 */
export async function attemptOn(
  server: ServeProcess,
  world: OperatorWorld,
  mobile: string,
): Promise<{ chargeId: string; attemptPath: string }> {
  const created = await call(server.url, '/payment', { key: world.merchant.live_secret_key, body: currentBody() });
  assert.equal(created.status, 201, created.text);
  const browser = new CheckoutClient(server.url);
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  assert.equal((await browser.get(pagePath)).status, 200);
  const posted = await browser.post(`${pagePath}/pay/mobile-money`, { mobile, operator: '' });
  assert.equal(posted.status, 303, posted.text.slice(0, 300));
  const attemptPath = new URL(posted.location!).pathname;
  return { chargeId: attemptPath.split('/').pop()!, attemptPath };
}

/** Asks for a live payout to `mobile` on `server`; the body sent and the answer. */
export async function payoutOn(
  server: ServeProcess,
  world: OperatorWorld,
  mobile: string,
  amount: number,
): Promise<{ chargeId: string; answer: ApiResponse }> {
  const body = payoutBody({ mobile, amount });
  const answer = await call(server.url, '/mobile-money/payouts/initialize', {
    key: world.merchant.live_secret_key,
    body,
  });
  return { chargeId: String(body.charge_id), answer };
}

/** The live records (payments and payouts) of the world's merchant with these charge_ids. */
export async function liveRecords(world: OperatorWorld, chargeIds: string[]): Promise<Charge[]> {
  const rows = await world.database.db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', world.merchant.id)
    .where('mode', '=', 'live')
    .where('charge_id', 'in', chargeIds)
    .execute();
  assert.equal(rows.length, chargeIds.length, 'one live record per charge_id');
  return rows;
}

/** How many requests to start a transaction Airtel received under our reference `id` (a charge's row id). */
export function startsReceived(
  fake: FakeAirtel,
  path: '/merchant/v1/payments/' | '/standard/v1/disbursements/',
  id: string,
): number {
  return fake
    .received('POST', path)
    .filter((request) => (request.body as { transaction?: { id?: string } }).transaction?.id === id).length;
}

/** The kinds of the ledger transactions referencing `id`, oldest first. */
export async function ledgerKindsOf(world: OperatorWorld, id: string): Promise<string[]> {
  const rows = await world.database.db
    .selectFrom('ledger_transactions')
    .select('kind')
    .where('reference', '=', id)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => row.kind);
}

/** How many events (webhook bodies) the record `id` emitted. */
export async function eventsOf(world: OperatorWorld, id: string): Promise<number> {
  return (await world.database.db.selectFrom('events').select('id').where('subject_id', '=', id).execute()).length;
}

/** What `lipira charges review --json` lists: the references (charge_ids) of records flagged and still pending. */
export async function reviewList(world: OperatorWorld): Promise<string[]> {
  const review = await lipira(['charges', 'review', '--json'], { DATABASE_URL: world.databaseUrl });
  assert.equal(review.code, 0, review.stderr);
  return (JSON.parse(review.stdout) as Array<{ reference: string }>).map((entry) => entry.reference);
}

/** `lipira ledger check`, as an operator runs it, must pass. */
export async function assertLedgerCheckPasses(world: OperatorWorld): Promise<void> {
  const checked = await lipira(['ledger', 'check'], { DATABASE_URL: world.databaseUrl });
  assert.equal(checked.code, 0, `${checked.stdout}${checked.stderr}`);
}

/**
 * Every record counted once: one push (or disbursement) to Airtel, one event (a checkout
 * attempt's is its session's), and the ledger movements of its kind.
 */
export async function assertEachCountedOnce(world: OperatorWorld, records: Charge[]): Promise<void> {
  for (const record of records) {
    const payout = record.kind === 'payout';
    assert.equal(
      startsReceived(world.fake, payout ? '/standard/v1/disbursements/' : '/merchant/v1/payments/', record.id),
      1,
      `${record.charge_id} was sent to Airtel once`,
    );
    assert.deepEqual(
      await ledgerKindsOf(world, record.id),
      payout ? ['payout_reserve', 'payout_complete'] : ['collection'],
      `${record.charge_id} moved money once`,
    );
    assert.equal(await eventsOf(world, record.session_id ?? record.id), 1, `${record.charge_id} emitted one event`);
  }
}
