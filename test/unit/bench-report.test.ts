import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Measurement } from '../../bench/measure.ts';
import { parseBenchArgs } from '../../bench/options.ts';
import { buildReport, formatReport } from '../../bench/report.ts';
import {
  CHARGE_VERIFY,
  CREATE,
  CREATE_FLOOR,
  FASTIFY_BASELINE,
  floorOf,
  NODE_HTTP_BASELINE,
  READ_ROWS,
  VERIFY,
  VERIFY_LEGACY,
} from '../../bench/scenarios.ts';

/** A clean row measured at `requestsPerSecond`, beside bare node:http at `bare` (none for the baselines' own row). */
function row(scenario: string, requestsPerSecond: number, bare?: number): Measurement {
  return {
    scenario,
    requestsPerSecond,
    latencyP50Ms: 1,
    latencyP99Ms: 5,
    responses: requestsPerSecond * 10,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: { 200: requestsPerSecond * 10 },
    serverCpuMicrosPerRequest: 40,
    serverRssMb: 150,
    machineBusyBefore: 0,
    ...(bare === undefined ? {} : { bareRequestsPerSecond: bare }),
  };
}

/** Ratios are floating point: equal to the last few bits. */
function near(actual: number, expected: number, message?: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${message ?? ''} ${actual} is not ${expected}`);
}

const PAYMENTS_LIST_ROW = 'payments list page, 1,000,000 payments, filtered by status';
const PAYMENTS_SEARCH_ROW = 'payments search, 1,000,000 payments, a tx_ref fragment in capitals';
const webhooks = { events: 10_000, seconds: 5, deliveriesPerSecond: 2000, lost: 0, duplicated: 0, unexpected: 0 };

/** Each read row's own rate; its floor's is 30,000, but mobile money verify's floor answers 28,000. */
const READ_RATES: Record<string, number> = { [VERIFY]: 24_000, [VERIFY_LEGACY]: 27_000, [CHARGE_VERIFY]: 21_000 };
const floorRate = (scenario: string) => (scenario === CHARGE_VERIFY ? 28_000 : 30_000);

// Reads beside bare node:http at 60,000; creating beside 50,000; the grown verify beside 40,000.
const results = {
  measurements: [
    row(NODE_HTTP_BASELINE, 60_000),
    row(FASTIFY_BASELINE, 54_000, 60_000),
    ...READ_ROWS.flatMap((scenario) => [
      row(floorOf(scenario), floorRate(scenario), 60_000),
      row(scenario, READ_RATES[scenario] ?? 27_000, 60_000),
    ]),
    row(CREATE_FLOOR, 10_000, 50_000),
    row(CREATE, 12_500, 50_000),
  ],
  grown: row(`${VERIFY} at 1,000,000 stored`, 14_400, 40_000),
  paymentsList: row(PAYMENTS_LIST_ROW, 400, 40_000),
  paymentsSearch: row(PAYMENTS_SEARCH_ROW, 300, 40_000),
  webhooks,
  finalServerRssMb: 170,
  paymentToWebhook: {
    rate: 200,
    achievedRate: 200,
    payments: 2000,
    received: 2000,
    lost: 0,
    duplicated: 0,
    p50Ms: 5,
    p90Ms: 9,
    p99Ms: 40,
    maxMs: 90,
  },
};

test('webhook deliveries are held to 1,000/s on SQLite and 1,500/s on PostgreSQL', () => {
  const target = (db: 'sqlite' | 'postgres', deliveriesPerSecond: number) =>
    buildReport(
      { ...results, webhooks: { ...webhooks, deliveriesPerSecond } },
      parseBenchArgs(['--db', db]),
      new Date(0),
    ).targets.find((t) => t.target.startsWith('webhook deliveries/s'))!;
  assert.deepEqual([target('sqlite', 1200).limit, target('sqlite', 1200).pass], [1000, true]);
  assert.deepEqual([target('postgres', 1200).limit, target('postgres', 1200).pass], [1500, false]);
  assert.equal(target('postgres', 1561).pass, true);
});

test('each row is compared with the bare node:http of its own phase', () => {
  const report = buildReport(results, parseBenchArgs([]), new Date(0));
  const ratio = (scenario: string) => report.rows.find((r) => r.scenario === scenario)!.vsNodeHttp;
  near(ratio(NODE_HTTP_BASELINE), 1);
  near(ratio(VERIFY), 0.4);
  near(ratio(CREATE), 0.25, "creating against its phase (50,000), not the reads' (60,000)");
  near(ratio(`${VERIFY} at 1,000,000 stored`), 0.36);
});

test('each gateway row stands beside its own floor row, both against bare node:http of their own phases', () => {
  const report = buildReport(results, parseBenchArgs([]), new Date(0));
  const vsFloor = (scenario: string) => report.rows.find((r) => r.scenario === scenario)!.vsFloor;
  assert.equal(vsFloor(NODE_HTTP_BASELINE), null);
  assert.equal(vsFloor(floorOf(VERIFY)), null);
  assert.equal(vsFloor(CREATE_FLOOR), null);
  assert.equal(vsFloor(PAYMENTS_LIST_ROW), null, 'the payments list has no floor');
  near(vsFloor(VERIFY)!, 0.8);
  near(vsFloor(CHARGE_VERIFY)!, 0.75, "against its own floor (28,000), not verify's (30,000)");
  near(vsFloor(CREATE)!, 1.25, "creating is 0.25 of its phase's node:http, its floor 0.20");
  near(vsFloor(`${VERIFY} at 1,000,000 stored`)!, 0.72, "verify in a later phase still reads against verify's floor");
});

test('each read route is held to 0.85 of its floor, failed by error answers from either', () => {
  const target = (scenario: string, measurements = results.measurements) =>
    buildReport({ ...results, measurements }, parseBenchArgs([]), new Date(0)).targets.find(
      (t) => t.target === `${scenario}: req/s vs its floor`,
    )!;
  for (const scenario of READ_ROWS) assert.ok(target(scenario), `a target for ${scenario}`);
  assert.equal(target(VERIFY).pass, false, '0.80 of its floor');
  assert.equal(target(VERIFY_LEGACY).pass, true, '0.90 of its floor');
  assert.equal(target(CHARGE_VERIFY).pass, false, '0.75 of its floor');
  const brokenFloor = results.measurements.map((m) =>
    m.scenario === floorOf(VERIFY_LEGACY) ? { ...m, non2xx: 5 } : m,
  );
  assert.equal(target(VERIFY_LEGACY, brokenFloor).note, 'error answers');
});

test('creating is held to 0.25 of bare node:http and 35 ms on SQLite, 0.10 and 40 ms on PostgreSQL', () => {
  const createTargets = (db: string, create: Measurement) => {
    const measurements = results.measurements.map((m) => (m.scenario === CREATE ? create : m));
    const { targets } = buildReport({ ...results, measurements }, parseBenchArgs(['--db', db]), new Date(0));
    return targets.filter((t) => t.target.startsWith(CREATE)).map((t) => [t.limit, t.pass]);
  };
  const slower = { ...row(CREATE, 6_000, 50_000), latencyP99Ms: 38 };
  assert.deepEqual(createTargets('sqlite', row(CREATE, 12_500, 50_000)), [
    [0.25, true],
    [35, true],
  ]);
  assert.deepEqual(createTargets('sqlite', slower), [
    [0.25, false],
    [35, false],
  ]);
  assert.deepEqual(createTargets('postgres', slower), [
    [0.1, true],
    [40, true],
  ]);
});

test("growth compares verify's two ratios; the raw ratio of req/s is kept beside it", () => {
  const { growth, targets } = buildReport(results, parseBenchArgs([]), new Date(0));
  near(growth.rawRatio, 0.6);
  near(growth.ratio, 0.9, '0.36 at 1,000,000 against 0.40 at 10,000');
  assert.equal(targets.find((t) => t.target.startsWith('growth'))!.pass, true);
  assert.equal(targets.find((t) => t.target === `${CREATE}: req/s vs bare node:http`)!.pass, true);
  assert.equal(targets.find((t) => t.target === `${VERIFY}: req/s vs its floor`)!.pass, false);
});

test("the printed table shows each row's baseline and the floor", () => {
  const text = formatReport(buildReport(results, parseBenchArgs([]), new Date(0)));
  assert.match(text, /10 s per scenario in 5 rounds/);
  assert.match(text, /bare req\/s/);
  assert.match(text, /create session POST \/payment +12500 .* 50000 +0\.25/);
  assert.match(text, /verify GET \/verify-payment\/:ref +24000 .* 60000 +0\.40 +0\.44 +0\.80/);
  assert.match(text, /^x floor: against the row's floor/m);
  assert.match(text, /\(0\.60\); against bare node:http in each one's phase: ratio 0\.90/);
});

test('the payments list row is held to its p99 of 100 ms, and failed by error answers', () => {
  const target = (paymentsList: Measurement) =>
    buildReport({ ...results, paymentsList }, parseBenchArgs([]), new Date(0)).targets.find(
      (t) => t.target === `${PAYMENTS_LIST_ROW}: p99`,
    )!;
  assert.equal(target(row(PAYMENTS_LIST_ROW, 400, 40_000)).pass, true);
  assert.equal(target({ ...row(PAYMENTS_LIST_ROW, 400, 40_000), latencyP99Ms: 101 }).pass, false);
  assert.equal(target({ ...row(PAYMENTS_LIST_ROW, 400, 40_000), non2xx: 3 }).note, 'error answers');
});

test('the payments search row is held to its p99 of 100 ms, and failed by error answers', () => {
  const target = (paymentsSearch: Measurement) =>
    buildReport({ ...results, paymentsSearch }, parseBenchArgs([]), new Date(0)).targets.find(
      (t) => t.target === `${PAYMENTS_SEARCH_ROW}: p99`,
    )!;
  assert.equal(target(row(PAYMENTS_SEARCH_ROW, 300, 40_000)).pass, true);
  assert.equal(target({ ...row(PAYMENTS_SEARCH_ROW, 300, 40_000), latencyP99Ms: 101 }).pass, false);
  assert.equal(target({ ...row(PAYMENTS_SEARCH_ROW, 300, 40_000), non2xx: 3 }).note, 'error answers');
  assert.match(formatReport(buildReport(results, parseBenchArgs([]), new Date(0))), /^payments search, 1,000,000 /m);
});

test('payment to webhook is held to p50 20 ms and p99 100 ms, and fails when a webhook was lost or sent twice', () => {
  const targets = (paymentToWebhook: typeof results.paymentToWebhook) =>
    buildReport({ ...results, paymentToWebhook }, parseBenchArgs([]), new Date(0)).targets.filter((t) =>
      t.target.startsWith('payment to webhook'),
    );
  assert.deepEqual(
    targets(results.paymentToWebhook).map((t) => [t.limit, t.pass]),
    [
      [20, true],
      [100, true],
      [0, true],
      [0, true],
    ],
  );
  assert.deepEqual(
    targets({ ...results.paymentToWebhook, p50Ms: 21, p99Ms: 250 }).map((t) => t.pass),
    [false, false, true, true],
  );
  const lost = targets({ ...results.paymentToWebhook, received: 1999, lost: 1 });
  assert.deepEqual(
    lost.map((t) => [t.pass, t.note]),
    [
      [false, 'webhooks lost or twice'],
      [false, 'webhooks lost or twice'],
      [false, null],
      [true, null],
    ],
  );
  assert.match(
    formatReport(buildReport(results, parseBenchArgs([]), new Date(0))),
    /^payment to webhook at 200 payments\/s offered .* p50 5 ms, p90 9 ms, p99 40 ms/m,
  );
});
