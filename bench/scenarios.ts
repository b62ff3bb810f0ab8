import type { Gateway } from './gateway.ts';
import type { Scenario } from './measure.ts';
import { refundBody, seedRef, sessionBody } from './requests.ts';
import type { SeededCheckout } from './rows.ts';
import type { ServerProcess } from './servers.ts';

export const NODE_HTTP_BASELINE = 'bare node:http GET';
export const FASTIFY_BASELINE = 'bare fastify GET';
export const VERIFY_FLOOR = 'floor: verify on bare fastify';
export const CREATE = 'create session POST /payment';
export const VERIFY = 'verify GET /verify-payment/:ref';
export const VERIFY_LEGACY = 'verify legacy GET /api/verify-payment/:ref';
export const CHARGE_VERIFY = 'mobile money verify GET /mobile-money/payments/:id/verify';
export const CHARGE_DETAILS = 'mobile money details GET /mobile-money/payments/:id/details';
export const BANK_TRANSFER_DETAILS = 'bank transfer details GET /direct-charge/transactions/:id/details';
export const CHECKOUT_PAGE = 'checkout page GET /checkout/:id';
export const CARD_VERIFY = 'card verify GET /charge-card/verify/:id';
export const REFUND_READ = 'refund read GET /refunds/:id';
export const PAYOUTS_LIST = 'bank payouts list GET /direct-charge/payouts?page=N';
export const MIXED_REFUNDS = 'mixed: 10% POST /refunds, 90% verify';
export const VERIFY_BESIDE_MIXED = 'verify, in turns with the mixed row';
/** Share of the mixed row's requests that create a refund. */
const MIXED_REFUND_SHARE = 0.1;
export const POPUP_SCRIPT = 'inline popup script GET /js/popup.js';
/**
 * The dashboard's payments list is read by people, a few at a time, not by a merchant's servers:
 * its row is loaded by ten connections (ten people at their dashboards at once), not the API's 50.
 */
const DASHBOARD_CONNECTIONS = 10;

/** What the gateway holds when the batch starts, for the scenarios to look up at random. */
export interface Seeded {
  /** Pending sessions `seed-0` … `seed-<sessions-1>`. */
  sessions: number;
  /** The ones made over HTTP, whose page ids the gateway told us. */
  checkouts: SeededCheckout[];
  /** Settled direct charges. */
  chargeIds: string[];
  /** Direct card charges paid through their 3-D Secure page. */
  cardChargeIds: string[];
  /** A refund of each of some of them. */
  refundIds: string[];
  /** Pages the seeded bank payouts fill in the payouts list. */
  payoutPages: number;
  /** Settled bank transfer charges. */
  transferIds: string[];
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const randomSeedRef = (sessions: number) => seedRef(Math.floor(Math.random() * sessions));

/**
 * A GET with the gateway's key whose path is made afresh for each request, from the seeded
 * records. The floor row sends the same request to its own server, which ignores the key.
 */
function lookup(name: string, server: ServerProcess, secretKey: string, path: () => string): Scenario {
  const headers = { authorization: `Bearer ${secretKey}` };
  return { name, server, request: { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: path() }) } };
}

/**
 * The batch, in the order it runs: the baselines (bare node:http and Fastify, and verify on bare
 * Fastify: the stack's floor for that route), then the gateway's reads while exactly
 * `seeded.sessions` sessions are stored (the growth target compares the verify row with one at a
 * larger size), and the create scenario last, since every request it makes adds a session.
 */
export function scenarios(nodeHttp: ServerProcess, fastify: ServerProcess, verifyFloor: ServerProcess, gateway: Gateway, seeded: Seeded): Scenario[] {
  // tx_ref is unique per merchant, so every create needs a reference no other request has used.
  let created = 0;
  return [
    { name: NODE_HTTP_BASELINE, server: nodeHttp, request: { method: 'GET', path: '/' } },
    { name: FASTIFY_BASELINE, server: fastify, request: { method: 'GET', path: '/' } },
    lookup(VERIFY_FLOOR, verifyFloor, gateway.secretKey, () => `/verify-payment/${randomSeedRef(seeded.sessions)}`),
    lookup(VERIFY, gateway, gateway.secretKey, () => `/verify-payment/${randomSeedRef(seeded.sessions)}`),
    lookup(VERIFY_LEGACY, gateway, gateway.secretKey, () => `/api/verify-payment/${randomSeedRef(seeded.sessions)}`),
    lookup(CHARGE_VERIFY, gateway, gateway.secretKey, () => `/mobile-money/payments/${pick(seeded.chargeIds)}/verify`),
    lookup(CHARGE_DETAILS, gateway, gateway.secretKey, () => `/mobile-money/payments/${pick(seeded.chargeIds)}/details`),
    lookup(BANK_TRANSFER_DETAILS, gateway, gateway.secretKey, () => `/direct-charge/transactions/${pick(seeded.transferIds)}/details`),
    lookup(CARD_VERIFY, gateway, gateway.secretKey, () => `/charge-card/verify/${pick(seeded.cardChargeIds)}`),
    lookup(CHECKOUT_PAGE, gateway, gateway.secretKey, () => `/checkout/${pick(seeded.checkouts).id}`),
    lookup(REFUND_READ, gateway, gateway.secretKey, () => `/refunds/${pick(seeded.refundIds)}`),
    lookup(PAYOUTS_LIST, gateway, gateway.secretKey, () => `/direct-charge/payouts?page=${1 + Math.floor(Math.random() * seeded.payoutPages)}`),
    // What every page of a shop using the popup loads (unless cached): no key, no database, the address limit only.
    { name: POPUP_SCRIPT, server: gateway, request: { method: 'GET', path: '/js/popup.js' } },
    {
      name: CREATE,
      server: gateway,
      request: {
        method: 'POST',
        path: '/payment',
        headers: { authorization: `Bearer ${gateway.secretKey}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: sessionBody(`bench-${process.pid}-${created++}`) }),
      },
    },
  ];
}

/**
 * Verification of the seeded sessions while refunds of the seeded charges are being created: one
 * request in ten is a refund of 1 MWK. Refunds lock the merchant's balances and count on their
 * charges; read beside the verify row, this row tells whether that slows anyone's verification.
 * It writes, so it runs in a phase of its own after the reads.
 */
export function mixedRefundsAndVerifies(gateway: Gateway, seeded: Seeded): Scenario {
  const authorization = `Bearer ${gateway.secretKey}`;
  // Fresh headers every time: autocannon writes a POST's Content-Length into the headers object it
  // was given, which a following GET would then send with no body behind it.
  return {
    name: MIXED_REFUNDS,
    server: gateway,
    request: {
      setupRequest: (request) =>
        Math.random() < MIXED_REFUND_SHARE
          ? { ...request, method: 'POST', path: '/refunds', headers: { authorization, 'content-type': 'application/json' }, body: refundBody(pick(seeded.chargeIds)) }
          : { ...request, method: 'GET', path: `/verify-payment/${randomSeedRef(seeded.sessions)}`, headers: { authorization }, body: undefined },
    },
  };
}

/** The verify scenario again once `stored` sessions are in the database, looking up any of `seed-0` … `seed-<sessions-1>`. */
export function grownVerify(gateway: Gateway, stored: number, sessions: number): Scenario {
  return lookup(`${VERIFY} at ${stored.toLocaleString('en-US')} stored`, gateway, gateway.secretKey, () => `/verify-payment/${randomSeedRef(sessions)}`);
}

/**
 * The dashboard's payments list filtered by status, read by a signed-in viewer of the bench
 * merchant (`cookie`) once `stored` sessions are in the database, a third of them successful.
 */
export function paymentsList(gateway: Gateway, cookie: string, stored: number): Scenario {
  return {
    name: `payments list page, ${stored.toLocaleString('en-US')} payments, filtered by status`,
    server: gateway,
    connections: DASHBOARD_CONNECTIONS,
    request: { method: 'GET', path: '/dashboard/payments?status=success', headers: { cookie } },
  };
}
