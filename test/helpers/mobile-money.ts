import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { AccountKind, DB } from '../../src/db/schema.ts';
import { settleCollections } from '../../src/ledger/ledger-service.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import type { Mode } from '../../src/shared/ids.ts';
import { uniqueRef } from './fixtures.ts';
import { call, type ApiResponse, type TestGateway } from './gateway.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/** The operator ids merchants hard-code (docs/integrate/api-reference.md#operators). */
export const AIRTEL_REF = '20be6c20-adeb-4b5b-a7ba-0769820df4fb';
export const TNM_REF = '27494cb5-ba9e-437f-a114-4e7a7686bcca';

/** The sandbox test numbers (docs/integrate/api-reference.md#sandbox-test-instruments). */
export const TEST_NUMBERS = {
  airtelSuccess: '0990000000',
  airtelFailed: '0990000001',
  tnmSuccess: '0899817565',
  tnmFailed: '0899817566',
} as const;

/** What every mobile money record shows (docs/integrate/api-reference.md#charge-records). */
export const RECORD_KEYS = [
  'amount',
  'attempts',
  'charge_id',
  'completed_at',
  'created_at',
  'currency',
  'email',
  'first_name',
  'last_name',
  'mobile',
  'mobile_money',
  'mode',
  'ref_id',
  'status',
  'trans_id',
].sort();
/** Initialize answers add the type, event type and fee. */
export const TYPED_KEYS = [...RECORD_KEYS, 'type', 'event_type', 'transaction_charges'].sort();
/** Verification adds how it was paid, how much of it was refunded, and what happened. */
export const VERIFY_KEYS = [...TYPED_KEYS, 'refunded_amount', 'refund_status', 'authorization', 'logs'].sort();
/** Details, of a charge or a payout, show everything verification shows, plus `trace_id`. */
export const DETAILS_KEYS = [...VERIFY_KEYS, 'trace_id'].sort();
export const AUTHORIZATION_KEYS = [
  'brand',
  'card_number',
  'channel',
  'completed_at',
  'expiry',
  'mobile_number',
  'provider',
];

export const DECIMAL_TEXT = /^\d+\.\d{2}$/;

export const sortedKeys = (value: object): string[] => Object.keys(value).sort();

/** A direct charge request for the Airtel success number; override any field. */
export function chargeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mobile: TEST_NUMBERS.airtelSuccess,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount: 1000,
    charge_id: uniqueRef('charge'),
    email: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Banda',
    ...overrides,
  };
}

/** A payout request to the Airtel success number; override any field. */
export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mobile: TEST_NUMBERS.airtelSuccess,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount: 1000,
    charge_id: uniqueRef('payout'),
    first_name: 'Peter',
    last_name: 'Phiri',
    email: 'peter@example.com',
    ...overrides,
  };
}

export const initializeCharge = (gw: TestGateway, key: string, body: unknown): Promise<ApiResponse> =>
  call(gw.url, '/mobile-money/payments/initialize', { key, body });
export const initializePayout = (gw: TestGateway, key: string, body: unknown): Promise<ApiResponse> =>
  call(gw.url, '/mobile-money/payouts/initialize', { key, body });
export const verify = (
  gw: TestGateway,
  key: string | null,
  chargeId: string,
  transactionStatus?: string,
): Promise<ApiResponse> =>
  call(
    gw.url,
    `/mobile-money/payments/${chargeId}/verify${transactionStatus ? `?transaction_status=${transactionStatus}` : ''}`,
    { key },
  );
export const details = (gw: TestGateway, key: string | null, chargeId: string): Promise<ApiResponse> =>
  call(gw.url, `/mobile-money/payments/${chargeId}/details`, { key });

/**
 * Polls `probe` until it gives a truthy value; fails after `timeoutMs`, saying what it waited for
 * (`what` as a function says it as things stand then, such as how many are still missing).
 */
export async function eventually<T>(
  what: string | (() => string | Promise<string>),
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      const waitedFor = typeof what === 'string' ? what : await what();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${waitedFor}`);
    }
    await sleep(25);
  }
}

const db = (gw: TestGateway): Kysely<DB> => gw.gateway.database.db;

/** The stored charges with this charge_id for the merchant, in every mode. */
export function chargeRows(gw: TestGateway, merchantId: string, chargeId: string): Promise<Charge[]> {
  return db(gw)
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('charge_id', '=', chargeId)
    .execute();
}

export async function testChargeRow(gw: TestGateway, merchantId: string, chargeId: string): Promise<Charge> {
  const rows = (await chargeRows(gw, merchantId, chargeId)).filter((row) => row.mode === 'test');
  assert.equal(rows.length, 1, `one test record for ${chargeId}`);
  return rows[0]!;
}

/** Waits, without reading through the API, until the background settler ended the charge. */
export function settledByWorker(gw: TestGateway, merchantId: string, chargeId: string): Promise<Charge> {
  return eventually(`${chargeId} to end`, async () => {
    const row = await testChargeRow(gw, merchantId, chargeId);
    return row.status === 'pending' ? null : row;
  });
}

/** The charge_ids of the attempts made on a checkout session, oldest first. */
export async function attemptChargeIds(gw: TestGateway, merchantId: string, txRef: string): Promise<string[]> {
  const rows = await db(gw)
    .selectFrom('charges')
    .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
    .select(['charges.charge_id'])
    .where('checkout_sessions.merchant_id', '=', merchantId)
    .where('checkout_sessions.tx_ref', '=', txRef)
    .orderBy('charges.created_at')
    .execute();
  return rows.map((row) => row.charge_id);
}

/** How many events (webhook bodies) a charge has emitted. */
export async function eventCount(gw: TestGateway, charge: Charge): Promise<number> {
  const rows = await db(gw).selectFrom('events').select('id').where('subject_id', '=', charge.id).execute();
  return rows.length;
}

/** The kinds of the ledger transactions that reference a charge or payout, oldest first. */
export async function ledgerKindsFor(gw: TestGateway, charge: Charge): Promise<string[]> {
  const rows = await db(gw)
    .selectFrom('ledger_transactions')
    .select(['kind'])
    .where('reference', '=', charge.id)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => row.kind);
}

/** An account's balance in minor units, straight from `ledger_accounts` (0 when never opened). */
export async function accountMinor(
  gw: TestGateway,
  owner: string,
  kind: AccountKind,
  mode: Mode = 'test',
  currency = 'MWK',
): Promise<number> {
  const row = await db(gw)
    .selectFrom('ledger_accounts')
    .select('balance_minor')
    .where('owner', '=', owner)
    .where('kind', '=', kind)
    .where('mode', '=', mode)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return Number(row?.balance_minor ?? 0);
}

export interface WalletBalance {
  main: string;
  collection: number;
}

/** `GET /wallet-balance` for a key, checked to answer 200. */
export async function walletBalance(gw: TestGateway, key: string, currency = 'MWK'): Promise<WalletBalance> {
  const res = await call(gw.url, `/wallet-balance?currency=${currency}`, { key });
  assert.equal(res.status, 200, res.text);
  return { main: res.body.data.main_balance, collection: res.body.data.collection_balance };
}

/**
 * Collects `amount` MWK from a customer with a direct charge (settled at once with
 * `transaction_status=success`), then settles every collection balance into main: the merchant's
 * main balance grows by the amount net of its 3 % fee.
 */
export async function fundMainBalance(gw: TestGateway, merchant: MerchantCredentials, amount: number): Promise<void> {
  const body = chargeBody({ amount });
  const created = await initializeCharge(gw, merchant.test_secret_key, body);
  assert.equal(created.status, 201, created.text);
  const verified = await verify(gw, merchant.test_secret_key, String(body.charge_id), 'success');
  assert.equal(verified.body.data.status, 'success', verified.text);
  await settleCollections(db(gw), Date.now());
}

/** A new merchant whose webhook URL is a fresh receiver (closed with the others in `receivers`). */
export async function merchantWithReceiver(
  gw: TestGateway,
  receivers: Receiver[],
): Promise<{ merchant: MerchantCredentials; receiver: Receiver }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const merchant = await gw.newMerchant();
  await updateMerchantSettings(db(gw), merchant.id, { webhookUrl: receiver.url }, Date.now());
  return { merchant, receiver };
}
