import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchDb } from './bench-db.ts';
import type { Gateway } from './gateway.ts';
import {
  bankPayoutBody,
  cardChargeBody,
  chargeBody,
  refundBody,
  seedCardChargeId,
  seedChargeId,
  seedPayoutId,
  seedRef,
  seedTransferId,
  sessionBody,
  transferBody,
} from './requests.ts';
import { newSession, withFreshKeys, type NewSession, type SeededCheckout, type SessionOwner } from './rows.ts';

const SEED_CONCURRENCY = 16;
const BULK_BATCH = 10_000;
/** The gateway tries this many fresh keys before giving up; so does the loader. */
const MAX_KEY_TRIES = 5;
const SETTLE_POLL_MS = 100;
const SETTLE_LIMIT_MS = 60_000;
/** The payouts list's page size (contract §10.3). */
const PAYOUTS_PER_PAGE = 20;

/** Runs `task(0)` … `task(count-1)`, a few at a time, as a client pool would. */
async function inParallel(count: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) await task(index);
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

async function post(gateway: Gateway, path: string, body: string, expected = 201): Promise<unknown> {
  const response = await fetch(gateway.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.secretKey}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(`seeding POST ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Pending sessions `seed-0` … `seed-<count-1>` made over HTTP, with the page ids from their `checkout_url`. */
export async function seedSessions(gateway: Gateway, count: number): Promise<SeededCheckout[]> {
  const checkouts: SeededCheckout[] = [];
  await inParallel(count, async (index) => {
    const answer = (await post(gateway, '/payment', sessionBody(seedRef(index)))) as {
      data?: { checkout_url?: unknown };
    };
    const url = answer.data?.checkout_url;
    if (typeof url !== 'string') throw new Error(`seeding ${seedRef(index)}: no checkout_url in the answer`);
    checkouts[index] = { id: new URL(url).pathname.split('/').pop()!, txRef: seedRef(index) };
  });
  return checkouts;
}

/** Direct charges `seed-charge-0` … `seed-charge-<count-1>`, from the sandbox number that succeeds. */
export async function seedCharges(gateway: Gateway, count: number): Promise<string[]> {
  await inParallel(count, (index) =>
    post(gateway, '/mobile-money/payments/initialize', chargeBody(seedChargeId(index))).then(() => undefined),
  );
  return Array.from({ length: count }, (_, index) => seedChargeId(index));
}

/**
 * Direct card charges `seed-card-0` … `seed-card-<count-1>`, each paid as a customer would: the
 * charge, then its 3-D Secure page and the sandbox's code, so that verification reads ended charges.
 */
export async function seedCardCharges(gateway: Gateway, count: number): Promise<string[]> {
  await inParallel(count, async (index) => {
    const started = (await post(gateway, '/charge-card/payments', cardChargeBody(seedCardChargeId(index)), 200)) as {
      '3ds_auth_link'?: unknown;
    };
    if (typeof started['3ds_auth_link'] !== 'string')
      throw new Error(`seeding ${seedCardChargeId(index)}: no 3ds_auth_link in the answer`);
    const link = new URL(started['3ds_auth_link']);
    const page = await fetch(gateway.url + link.pathname + link.search);
    const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? '';
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const confirmed = await fetch(gateway.url + link.pathname + link.search, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: gateway.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, otp: '1234' }).toString(),
    });
    const landed = confirmed.headers.get('location') ?? '';
    if (confirmed.status !== 303 || !landed.includes('status=success'))
      throw new Error(`seeding ${seedCardChargeId(index)}: the code was answered ${confirmed.status} ${landed}`);
  });
  return Array.from({ length: count }, (_, index) => seedCardChargeId(index));
}

/** One refund of 1 MWK of each of `chargeIds` (settled charges), for the refund read row; their ids. */
export async function seedRefunds(gateway: Gateway, chargeIds: string[]): Promise<string[]> {
  const refundIds: string[] = [];
  await inParallel(chargeIds.length, async (index) => {
    const answer = (await post(gateway, '/refunds', refundBody(chargeIds[index]!))) as {
      data?: { refund_id?: unknown };
    };
    const id = answer.data?.refund_id;
    if (typeof id !== 'string') throw new Error(`seeding a refund of ${chargeIds[index]}: no refund_id in the answer`);
    refundIds[index] = id;
  });
  return refundIds;
}

/**
 * `count` bank payouts, paid from the main balance once the settled charges' collections have
 * been moved there (`lipira ledger settle`, as an operator would); how many pages they list on.
 */
export async function seedBankPayouts(gateway: Gateway, count: number): Promise<number> {
  await gateway.cli(['ledger', 'settle']);
  await inParallel(count, (index) =>
    post(gateway, '/direct-charge/payouts/initialize', bankPayoutBody(seedPayoutId(index))).then(() => undefined),
  );
  return Math.ceil(count / PAYOUTS_PER_PAGE);
}

/** Bank transfer charges `seed-transfer-0` … `seed-transfer-<count-1>`, paid by the sandbox once due, as the direct charges are. */
export async function seedBankTransfers(gateway: Gateway, count: number): Promise<string[]> {
  await inParallel(count, (index) =>
    post(gateway, '/direct-charge/payments/initialize', transferBody(seedTransferId(index))).then(() => undefined),
  );
  return Array.from({ length: count }, (_, index) => seedTransferId(index));
}

/** Waits for the gateway's settler to complete every charge (SANDBOX_MOBILE_DELAY=0 makes them due at once). */
export async function waitForSettledCharges(db: BenchDb): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  for (let pending = await db.pendingCharges(); pending > 0; pending = await db.pendingCharges()) {
    if (Date.now() > deadline)
      throw new Error(`${pending} seeded charges still pending after ${SETTLE_LIMIT_MS / 1000} s`);
    await sleep(SETTLE_POLL_MS);
  }
}

/**
 * Whose the bulk-loaded sessions are and how long they live, read from a session the gateway made
 * over HTTP; and a check that the loader builds that very row, so that bulk-loaded sessions cannot
 * silently drift from the gateway's as its code changes.
 */
export async function sessionOwnerFrom(db: BenchDb, merchantId: string, txRef: string): Promise<SessionOwner> {
  const stored = await db.findSession(merchantId, txRef);
  if (!stored) throw new Error(`seeded session ${txRef} is not in the database`);
  const owner = { merchantId, ttlMs: stored.expires_at - stored.created_at };
  // The same session as the loader would make it, but for its random keys.
  const ours: Record<string, unknown> = {
    ...newSession(owner, txRef, stored.created_at).session,
    id: stored.id,
    reference: stored.reference,
  };
  const theirs: Record<string, unknown> = { ...stored };
  const columns = new Set([...Object.keys(theirs), ...Object.keys(ours)]);
  const differing = [...columns].filter((column) => !isDeepStrictEqual(theirs[column], ours[column]));
  if (differing.length > 0)
    throw new Error(
      `the bulk loader's sessions differ from the gateway's in: ${differing.join(', ')} (update bench/rows.ts)`,
    );
  return owner;
}

/**
 * Bulk-loads sessions `seed-<from>`, `seed-<from+1>`, … until the database holds `target`
 * sessions in all; returns the index after the last one loaded.
 */
export async function fillSessions(db: BenchDb, owner: SessionOwner, from: number, target: number): Promise<number> {
  const missing = Math.max(0, target - (await db.countSessions()));
  for (let start = from; start < from + missing; start += BULK_BATCH) {
    const now = Date.now();
    const end = Math.min(start + BULK_BATCH, from + missing);
    let batch: NewSession[] = Array.from({ length: end - start }, (_, i) => newSession(owner, seedRef(start + i), now));
    for (let tries = 0; batch.length > 0; tries++) {
      if (tries === MAX_KEY_TRIES)
        throw new Error(`could not insert ${batch.length} sessions, e.g. ${batch[0]!.session.tx_ref}, with fresh keys`);
      batch = (await db.insertSessions(batch)).map(withFreshKeys);
    }
  }
  if (missing > 0) await db.afterBulkLoad();
  return from + missing;
}
