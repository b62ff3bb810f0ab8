import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { randomBase62, type Mode } from '../../src/shared/ids.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { currentBody, legacyBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';
import { bankPayoutBody, initializeBankPayout } from '../helpers/bank-payouts.ts';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import {
  AIRTEL_REF,
  chargeBody,
  fundMainBalance,
  initializeCharge,
  initializePayout,
  payoutBody,
  TEST_NUMBERS,
  verify,
} from '../helpers/mobile-money.ts';
import { XSS_MARKER } from './fuzz-json.ts';

/** The body limit the fuzz gateway runs with (the default), so that oversized bodies can be made on purpose. */
export const BODY_LIMIT = 65_536;

/** References of one kind, by whose they are from the point of view of merchant A's test key. */
export interface RefPool {
  /** Merchant A, test mode: what A's test key may see. */
  own: string[];
  /** Merchant A, live mode. */
  ownLive: string[];
  /** Merchant B, test mode. */
  other: string[];
}

/** Hosted checkout links and attempts, fresh for each page route (its requests may end them). */
export interface CheckoutPool {
  /** Pending sessions of A in test mode; the first ones have a mobile money or card attempt. */
  sessions: string[];
  /** A live session of A, and a test session of B. */
  foreignSessions: string[];
  /** Whose each session is. */
  owners: Map<string, { merchantId: string; mode: Mode }>;
  /** `{sessionId, chargeId}` of pending attempts: mobile money awaiting approval, cards awaiting their code. */
  attempts: Array<{ sessionId: string; chargeId: string }>;
}

/** What the requests are made from: plain data, handed to the load generator's own thread. */
export interface WorldData {
  /** The gateway's address. */
  url: string;
  /** What GET /metrics asks for (METRICS_TOKEN): without it only a cheap 401, with it the full exposition. */
  metricsToken: string;
  a: MerchantCredentials;
  b: MerchantCredentials;
  /** Every secret the gateway holds: none may ever appear in an answer. */
  secrets: string[];
  /** Which merchant and mode each secret key stands for. */
  principals: Map<string, { merchantId: string; mode: Mode }>;
  txRefs: RefPool;
  chargeIds: RefPool;
  deliveryIds: RefPool;
  /** Refunds of A's and B's test payments, pending (the settler is idle). */
  refundIds: RefPool;
}

export interface FuzzWorld {
  gw: TestGateway;
  data: WorldData;
  /** Server log lines at level error or above: an unexpected error is a finding even when it was answered well. */
  serverErrors: string[];
  freshCheckouts(): Promise<CheckoutPool>;
  close(): Promise<void>;
}

/**
 * A gateway with two merchants and records of every kind in both modes, for the fuzz run. It
 * runs no background workers (WORKERS=off) and test mobile money never settles by itself
 * (SANDBOX_MOBILE_DELAY 1h): every change to the database
 * during the run then comes from a request the run sent, which the "no record for a rejected
 * request" check needs. The server's error log is kept: an unexpected error is a finding even
 * when its answer was a proper 500.
 */
export async function openFuzzWorld(kind: 'sqlite' | 'postgres'): Promise<FuzzWorld> {
  const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-fuzz-outbox-'));
  const serverErrors: string[] = [];
  const metricsToken = `metrics-${randomBase62(24)}`;
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      serverErrors.push(chunk.toString('utf8'));
      done();
    },
  });
  const gw = await startTestGateway(
    kind,
    {
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
      RATE_LIMIT_ADDRESS_BURST: '1000000',
      SANDBOX_MOBILE_DELAY: '1h',
      WORKERS: 'off',
      BODY_LIMIT: String(BODY_LIMIT),
      OUTBOX_DIR: outbox,
      SMTP_URL: '',
      METRICS_TOKEN: metricsToken,
      // Live sessions may be made; every live attempt is still refused (see LIVE_SESSIONS_ONLY).
      ...LIVE_SESSIONS_ONLY,
    },
    pino({ level: 'error' }, logSink),
  );
  const db = gw.gateway.database.db;
  const a = await gw.newMerchant('Merchant A');
  const b = await gw.newMerchant('Merchant B');
  // Deliveries are queued only for merchants with a URL; no worker runs to send them.
  for (const merchant of [a, b])
    await updateMerchantSettings(
      db,
      merchant.id,
      { webhookUrl: `https://${merchant.id.toLowerCase()}.example/hooks` },
      Date.now(),
    );

  const txRefs: RefPool = { own: [], ownLive: [], other: [] };
  const chargeIds: RefPool = { own: [], ownLive: [], other: [] };

  // Merchant A, test mode: sessions pending, paid, cancelled and one full of injection text;
  // charges pending, paid and failed; payouts paid and failed (after funding its balance),
  // payouts through the banks list to a bank and to a wallet, pending, and a bank transfer charge, pending.
  await fundMainBalance(gw, a, 1_000_000);
  txRefs.own.push(
    await createdTxRef(gw, a.test_secret_key, '/payment'),
    await createdTxRef(gw, a.test_secret_key, '/api/payment'),
  );
  txRefs.own.push(await createdTxRef(gw, a.test_secret_key, '/payment', hostileCustomization()));
  txRefs.own.push((await paidByCard(gw, a.test_secret_key)).txRef, await cancelledTxRef(gw, a.test_secret_key));
  chargeIds.own.push(
    await directCharge(gw, a.test_secret_key, null),
    await directCharge(gw, a.test_secret_key, 'success'),
    await directCharge(gw, a.test_secret_key, 'failed'),
  );
  chargeIds.own.push(await payout(gw, a.test_secret_key, 'successful'), await payout(gw, a.test_secret_key, 'failed'));
  chargeIds.own.push(
    await bankPayout(gw, a.test_secret_key, {}),
    await bankPayout(gw, a.test_secret_key, { bank_uuid: AIRTEL_REF, bank_account_number: TEST_NUMBERS.airtelSuccess }),
  );
  chargeIds.own.push(await bankTransfer(gw, a.test_secret_key));
  chargeIds.own.push(...(await attemptChargeIds(gw, a.id, 'test')));

  // Merchant A, live mode: sessions (live providers move no money, so no live charge exists).
  txRefs.ownLive.push(
    await createdTxRef(gw, a.live_secret_key, '/payment'),
    await createdTxRef(gw, a.live_secret_key, '/api/payment', { currency: 'MWK' }),
  );

  // Merchant B, test mode: the same kinds of records, some with the very references A uses.
  txRefs.other.push(
    await createdTxRef(gw, b.test_secret_key, '/payment'),
    (await paidByCard(gw, b.test_secret_key)).txRef,
  );
  chargeIds.other.push(
    await directCharge(gw, b.test_secret_key, 'success'),
    await directCharge(gw, b.test_secret_key, null, chargeIds.own[0]),
  );
  chargeIds.other.push(...(await attemptChargeIds(gw, b.id, 'test')));

  // Part of a paid direct charge of each, refunded: refunds to read back, and payments with less left to refund.
  const refundIds: RefPool = {
    own: [await refunded(gw, a.test_secret_key, chargeIds.own[1]!)],
    ownLive: [],
    other: [await refunded(gw, b.test_secret_key, chargeIds.other[0]!)],
  };

  const deliveries = await db.selectFrom('webhook_deliveries').select(['id', 'merchant_id', 'mode']).execute();
  const deliveryIds: RefPool = {
    own: deliveries.filter((row) => row.merchant_id === a.id && row.mode === 'test').map((row) => row.id),
    ownLive: deliveries.filter((row) => row.merchant_id === a.id && row.mode === 'live').map((row) => row.id),
    other: deliveries.filter((row) => row.merchant_id === b.id).map((row) => row.id),
  };
  assert.ok(
    deliveryIds.own.length >= 3 && deliveryIds.other.length >= 2,
    'the seeded outcomes queued webhook deliveries',
  );

  const principals = new Map<string, { merchantId: string; mode: Mode }>();
  for (const merchant of [a, b]) {
    principals.set(merchant.test_secret_key, { merchantId: merchant.id, mode: 'test' });
    principals.set(merchant.live_secret_key, { merchantId: merchant.id, mode: 'live' });
  }

  return {
    gw,
    data: {
      url: gw.url,
      metricsToken,
      a,
      b,
      secrets: [
        metricsToken,
        ...[a, b].flatMap((merchant) => [merchant.test_secret_key, merchant.live_secret_key, merchant.webhook_secret]),
      ],
      principals,
      txRefs,
      chargeIds,
      deliveryIds,
      refundIds,
    },
    serverErrors,
    async freshCheckouts() {
      const sessions: string[] = [];
      const attempts: CheckoutPool['attempts'] = [];
      for (let i = 0; i < 4; i++) {
        const mobile = await openCheckout(gw, a.test_secret_key);
        attempts.push({
          sessionId: mobile.id,
          chargeId: await attemptOn(mobile, '/pay/mobile-money', {
            mobile: TEST_NUMBERS.airtelSuccess,
            operator: 'airtel',
          }),
        });
        const card = await openCheckout(gw, a.test_secret_key);
        attempts.push({
          sessionId: card.id,
          chargeId: await attemptOn(card, '/pay/card', {
            card_number: '4242 4242 4242 4242',
            expiry: '12/40',
            cvv: '123',
          }),
        });
        sessions.push(mobile.id, card.id);
      }
      for (let i = 0; i < 4; i++) sessions.push((await openCheckout(gw, a.test_secret_key)).id);
      sessions.push((await openCheckout(gw, a.test_secret_key, hostileCustomization())).id);
      const foreignSessions = [
        (await openCheckout(gw, a.live_secret_key)).id,
        (await openCheckout(gw, b.test_secret_key)).id,
      ];
      const owners: CheckoutPool['owners'] = new Map(sessions.map((id) => [id, { merchantId: a.id, mode: 'test' }]));
      owners.set(foreignSessions[0]!, { merchantId: a.id, mode: 'live' });
      owners.set(foreignSessions[1]!, { merchantId: b.id, mode: 'test' });
      return { sessions, foreignSessions, attempts, owners };
    },
    async close() {
      await gw.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    },
  };
}

/** Merchant text full of markup, so that the pages that show it prove they escape it. */
function hostileCustomization(): Record<string, unknown> {
  return {
    first_name: `<script>${XSS_MARKER}()</script>`,
    last_name: `"><img src=x onerror=${XSS_MARKER}()>`,
    customization: { title: `<script>${XSS_MARKER}()</script>`, description: `'><svg onload=${XSS_MARKER}()>` },
    meta: { note: `</script><script>${XSS_MARKER}()</script>` },
  };
}

async function createdTxRef(
  gw: TestGateway,
  key: string,
  path: '/payment' | '/api/payment',
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const body = path === '/payment' ? currentBody(overrides) : legacyBody(overrides);
  const created = await call(gw.url, path, { key, body });
  assert.equal(created.status, 201, created.text);
  return String(body.tx_ref);
}

interface OpenCheckout {
  id: string;
  txRef: string;
  client: CheckoutClient;
  pagePath: string;
}

async function openCheckout(
  gw: TestGateway,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<OpenCheckout> {
  const body = currentBody(overrides);
  const created = await call(gw.url, '/payment', { key, body });
  assert.equal(created.status, 201, created.text);
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  const client = new CheckoutClient(gw.url);
  assert.equal((await client.get(pagePath)).status, 200);
  return { id: pagePath.split('/').pop()!, txRef: String(body.tx_ref), client, pagePath };
}

/** Starts an attempt through the page's form; returns its charge_id. */
async function attemptOn(checkout: OpenCheckout, form: string, fields: Record<string, string>): Promise<string> {
  const posted = await checkout.client.post(`${checkout.pagePath}${form}`, fields);
  assert.equal(posted.status, 303, posted.text.slice(0, 300));
  return new URL(posted.location!).pathname.split('/').pop()!;
}

async function paidByCard(gw: TestGateway, key: string): Promise<OpenCheckout> {
  const checkout = await openCheckout(gw, key);
  const chargeId = await attemptOn(checkout, '/pay/card', {
    card_number: '4242 4242 4242 4242',
    expiry: '12/40',
    cvv: '123',
  });
  const confirmed = await checkout.client.post(`${checkout.pagePath}/attempts/${chargeId}/otp`, { otp: '1234' });
  assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
  return checkout;
}

async function cancelledTxRef(gw: TestGateway, key: string): Promise<string> {
  const checkout = await openCheckout(gw, key);
  assert.equal((await checkout.client.post(`${checkout.pagePath}/cancel`, {})).status, 303);
  return checkout.txRef;
}

/** A direct charge left pending, or settled to `outcome` in test mode; returns its charge_id. */
async function directCharge(
  gw: TestGateway,
  key: string,
  outcome: 'success' | 'failed' | null,
  chargeId?: string,
): Promise<string> {
  const body = chargeBody({
    ...(chargeId && { charge_id: chargeId }),
    ...(outcome === 'failed' && { mobile: TEST_NUMBERS.airtelFailed }),
  });
  const created = await initializeCharge(gw, key, body);
  assert.equal(created.status, 201, created.text);
  if (outcome) assert.equal((await verify(gw, key, String(body.charge_id), outcome)).body.data.status, outcome);
  return String(body.charge_id);
}

/** Refunds 100 of a paid charge; returns the refund's id. */
async function refunded(gw: TestGateway, key: string, chargeId: string): Promise<string> {
  const created = await call(gw.url, '/refunds', { key, body: { charge_id: chargeId, amount: 100 } });
  assert.equal(created.status, 201, created.text);
  return String(created.body.data.refund_id);
}

async function payout(gw: TestGateway, key: string, outcome: 'successful' | 'failed'): Promise<string> {
  const body = payoutBody({ transaction_status: outcome });
  const created = await initializePayout(gw, key, body);
  assert.equal(created.status, 201, created.text);
  return String(body.charge_id);
}

/** A payout through the banks list, left pending (test payouts take an hour here); returns its charge_id. */
async function bankPayout(gw: TestGateway, key: string, overrides: Record<string, unknown>): Promise<string> {
  const body = bankPayoutBody({ amount: 777, ...overrides });
  const created = await initializeBankPayout(gw, key, body);
  assert.equal(created.status, 201, created.text);
  return String(body.charge_id);
}

/** A bank transfer charge, pending: its account open for an hour. */
async function bankTransfer(gw: TestGateway, key: string): Promise<string> {
  const body = bankTransferBody();
  const created = await initializeBankTransfer(gw, key, body);
  assert.equal(created.status, 201, created.text);
  return String(body.charge_id);
}

/** The charge_ids of a merchant's checkout attempts: visible through the charge endpoints too. */
async function attemptChargeIds(gw: TestGateway, merchantId: string, mode: Mode): Promise<string[]> {
  const rows = await gw.gateway.database.db
    .selectFrom('charges')
    .select('charge_id')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('session_id', 'is not', null)
    .execute();
  return rows.map((row) => row.charge_id);
}
