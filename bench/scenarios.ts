import type { Gateway } from './gateway.ts';
import type { Scenario } from './measure.ts';
import { refundBody, seedRef, sessionBody } from './requests.ts';
import type { SeededCheckout } from './rows.ts';
import type { ServerProcess } from './servers.ts';

export const NODE_HTTP_BASELINE = 'bare node:http GET';
export const FASTIFY_BASELINE = 'bare fastify GET';
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
/** The gateway's read rows, each beside its floor row (`floorOf`). */
export const READ_ROWS = [
  VERIFY,
  VERIFY_LEGACY,
  CHARGE_VERIFY,
  CHARGE_DETAILS,
  BANK_TRANSFER_DETAILS,
  CARD_VERIFY,
  CHECKOUT_PAGE,
  REFUND_READ,
  PAYOUTS_LIST,
  POPUP_SCRIPT,
];
/**
 * A read row's floor: the same requests to bare Fastify answering the route with the gateway's own
 * query, view and response schema (bench/baseline-floors.ts).
 */
export const floorOf = (scenario: string) => `floor: ${scenario}`;
/** Create's floor: the same body to bare Fastify inserting the same rows, one transaction per request. */
export const CREATE_FLOOR = 'floor: create on bare fastify + insert per request';
/**
 * The floor row each gateway row is read against: a read row's own, create's, and verify's for the
 * row that repeats verify in a later phase (the grown verify row is given it by the report).
 */
export const FLOOR_ROWS: ReadonlyMap<string, string> = new Map([
  ...READ_ROWS.map((scenario): [string, string] => [scenario, floorOf(scenario)]),
  [VERIFY_BESIDE_MIXED, floorOf(VERIFY)],
  [CREATE, CREATE_FLOOR],
]);
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
 * records. A floor row sends the same requests to its own server, which ignores the key.
 */
function lookup(name: string, server: ServerProcess, secretKey: string, path: () => string): Scenario {
  const headers = { authorization: `Bearer ${secretKey}` };
  return {
    name,
    server,
    request: { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: path() }) },
  };
}

/** `POST /payment` with a tx_ref of its own each time (unique per merchant): `prefix-<pid>-<n>`. */
function creating(name: string, server: ServerProcess, secretKey: string, prefix: string): Scenario {
  let created = 0;
  return {
    name,
    server,
    request: {
      method: 'POST',
      path: '/payment',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      setupRequest: (request) => ({ ...request, body: sessionBody(`${prefix}-${process.pid}-${created++}`) }),
    },
  };
}

/**
 * The batch, in the order it runs: the baselines (bare node:http and Fastify), then each of the
 * gateway's reads after its floor row (the same route on bare Fastify, `floors`) while exactly
 * `seeded.sessions` sessions are stored (the growth target compares the verify row with one at a
 * larger size), and creating last, on the gateway and on its floor, since every request adds a
 * session; the two write to the same database, so their references differ.
 */
export function scenarios(
  nodeHttp: ServerProcess,
  fastify: ServerProcess,
  floors: ServerProcess,
  gateway: Gateway,
  seeded: Seeded,
): Scenario[] {
  const reads: Array<[name: string, path: () => string]> = [
    [VERIFY, () => `/verify-payment/${randomSeedRef(seeded.sessions)}`],
    [VERIFY_LEGACY, () => `/api/verify-payment/${randomSeedRef(seeded.sessions)}`],
    [CHARGE_VERIFY, () => `/mobile-money/payments/${pick(seeded.chargeIds)}/verify`],
    [CHARGE_DETAILS, () => `/mobile-money/payments/${pick(seeded.chargeIds)}/details`],
    [BANK_TRANSFER_DETAILS, () => `/direct-charge/transactions/${pick(seeded.transferIds)}/details`],
    [CARD_VERIFY, () => `/charge-card/verify/${pick(seeded.cardChargeIds)}`],
    [CHECKOUT_PAGE, () => `/checkout/${pick(seeded.checkouts).id}`],
    [REFUND_READ, () => `/refunds/${pick(seeded.refundIds)}`],
    [PAYOUTS_LIST, () => `/direct-charge/payouts?page=${1 + Math.floor(Math.random() * seeded.payoutPages)}`],
  ];
  // What every page of a shop using the popup loads (unless cached): no key, no database, the address limit only.
  const popupScript = (name: string, server: ServerProcess): Scenario => ({
    name,
    server,
    request: { method: 'GET', path: '/js/popup.js' },
  });
  return [
    { name: NODE_HTTP_BASELINE, server: nodeHttp, request: { method: 'GET', path: '/' } },
    { name: FASTIFY_BASELINE, server: fastify, request: { method: 'GET', path: '/' } },
    ...reads.flatMap(([name, path]) => [
      lookup(floorOf(name), floors, gateway.secretKey, path),
      lookup(name, gateway, gateway.secretKey, path),
    ]),
    popupScript(floorOf(POPUP_SCRIPT), floors),
    popupScript(POPUP_SCRIPT, gateway),
    creating(CREATE_FLOOR, floors, gateway.secretKey, 'floor'),
    creating(CREATE, gateway, gateway.secretKey, 'bench'),
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
          ? {
              ...request,
              method: 'POST',
              path: '/refunds',
              headers: { authorization, 'content-type': 'application/json' },
              body: refundBody(pick(seeded.chargeIds)),
            }
          : {
              ...request,
              method: 'GET',
              path: `/verify-payment/${randomSeedRef(seeded.sessions)}`,
              headers: { authorization },
              body: undefined,
            },
    },
  };
}

/** The verify scenario again once `stored` sessions are in the database, looking up any of `seed-0` … `seed-<sessions-1>`. */
export function grownVerify(gateway: Gateway, stored: number, sessions: number): Scenario {
  return lookup(
    `${VERIFY} at ${stored.toLocaleString('en-US')} stored`,
    gateway,
    gateway.secretKey,
    () => `/verify-payment/${randomSeedRef(sessions)}`,
  );
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

/**
 * The dashboard's payments search at the same size, read by the same viewer: a fragment of a
 * tx_ref typed in capitals, `SEED-<n>` with n drawn afresh for each request (`searchedRef`), as a
 * merchant pastes part of an order number. Each finds eleven sessions, seed-n and seed-n0 …
 * seed-n9, among `sessions` seeded refs: a selective search, which the index must answer without
 * reading the merchant's rows one by one.
 */
export function paymentsSearch(gateway: Gateway, cookie: string, stored: number, sessions: number): Scenario {
  return {
    name: `payments search, ${stored.toLocaleString('en-US')} payments, a tx_ref fragment in capitals`,
    server: gateway,
    connections: DASHBOARD_CONNECTIONS,
    request: {
      method: 'GET',
      headers: { cookie },
      setupRequest: (request) => ({ ...request, path: paymentsSearchPath(searchedRef(sessions)) }),
    },
  };
}

/**
 * A seeded ref the search finds with exactly the ten one digit longer: n in [sessions/100,
 * sessions/10), so n9 is seeded (10n + 9 < sessions) and n00 is not (100n ≥ sessions).
 */
export function searchedRef(sessions: number, share = Math.random()): string {
  const least = Math.ceil(sessions / 100);
  const most = Math.floor(sessions / 10);
  return seedRef(least + Math.floor(share * (most - least)));
}

/** The payments list searched for `ref` in capitals: the search must ignore case. */
export const paymentsSearchPath = (ref: string) => `/dashboard/payments?q=${encodeURIComponent(ref.toUpperCase())}`;
