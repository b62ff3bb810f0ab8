import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Measurement } from '../../bench/measure.ts';
import { parseBenchArgs } from '../../bench/options.ts';
import { buildReport, formatReport } from '../../bench/report.ts';
import { CARD_VERIFY, CHARGE_DETAILS, CHARGE_VERIFY, CHECKOUT_PAGE, CREATE, FASTIFY_BASELINE, NODE_HTTP_BASELINE, VERIFY, VERIFY_FLOOR, VERIFY_LEGACY } from '../../bench/scenarios.ts';

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
const webhooks = { events: 10_000, seconds: 5, deliveriesPerSecond: 2000, lost: 0, duplicated: 0, unexpected: 0 };

// Reads beside bare node:http at 60,000; creating beside 50,000; the grown verify beside 40,000.
const results = {
  measurements: [
    row(NODE_HTTP_BASELINE, 60_000),
    row(FASTIFY_BASELINE, 54_000, 60_000),
    row(VERIFY_FLOOR, 30_000, 60_000),
    row(VERIFY, 24_000, 60_000),
    row(VERIFY_LEGACY, 27_000, 60_000),
    row(CHARGE_VERIFY, 21_000, 60_000),
    row(CHARGE_DETAILS, 27_000, 60_000),
    row(CARD_VERIFY, 27_000, 60_000),
    row(CHECKOUT_PAGE, 21_000, 60_000),
    row(CREATE, 12_500, 50_000),
  ],
  grown: row(`${VERIFY} at 1,000,000 stored`, 14_400, 40_000),
  paymentsList: row(PAYMENTS_LIST_ROW, 400, 40_000),
  webhooks,
  finalServerRssMb: 170,
};

test('each row is compared with the bare node:http of its own phase', () => {
  const report = buildReport(results, parseBenchArgs([]), new Date(0));
  const ratio = (scenario: string) => report.rows.find((r) => r.scenario === scenario)!.vsNodeHttp;
  near(ratio(NODE_HTTP_BASELINE), 1);
  near(ratio(VERIFY), 0.4);
  near(ratio(CREATE), 0.25, 'creating against its phase (50,000), not the reads\' (60,000)');
  near(ratio(`${VERIFY} at 1,000,000 stored`), 0.36);
  near(report.verifyVsFloor, 0.8);
});

test('each gateway row stands beside the floor row, both against bare node:http of their own phases', () => {
  const report = buildReport(results, parseBenchArgs([]), new Date(0));
  const vsFloor = (scenario: string) => report.rows.find((r) => r.scenario === scenario)!.vsFloor;
  assert.equal(vsFloor(NODE_HTTP_BASELINE), null);
  assert.equal(vsFloor(VERIFY_FLOOR), null);
  near(vsFloor(VERIFY)!, 0.8);
  near(vsFloor(CREATE)!, 0.5, 'creating is 0.25 of its phase\'s node:http; the floor 0.50 of its own');
  near(vsFloor(`${VERIFY} at 1,000,000 stored`)!, 0.72);
});

test('growth compares verify\'s two ratios; the raw ratio of req/s is kept beside it', () => {
  const { growth, targets } = buildReport(results, parseBenchArgs([]), new Date(0));
  near(growth.rawRatio, 0.6);
  near(growth.ratio, 0.9, '0.36 at 1,000,000 against 0.40 at 10,000');
  assert.equal(targets.find((t) => t.target.startsWith('growth'))!.pass, true);
  assert.equal(targets.find((t) => t.target === `${CREATE}: req/s vs bare node:http`)!.pass, true);
  assert.equal(targets.find((t) => t.target === `${VERIFY}: req/s vs bare node:http`)!.pass, false);
});

test('the printed table shows each row\'s baseline and the floor', () => {
  const text = formatReport(buildReport(results, parseBenchArgs([]), new Date(0)));
  assert.match(text, /10 s per scenario in 5 rounds/);
  assert.match(text, /bare req\/s/);
  assert.match(text, /create session POST \/payment +12500 .* 50000 +0\.25/);
  assert.match(text, /Floor: the gateway's verify makes 0\.80 ×/);
  assert.match(text, /\(0\.60\); against bare node:http in each one's phase: ratio 0\.90/);
});

test('the payments list row is held to its p99 of 100 ms, and failed by error answers', () => {
  const target = (paymentsList: Measurement) => buildReport({ ...results, paymentsList }, parseBenchArgs([]), new Date(0)).targets.find((t) => t.target === `${PAYMENTS_LIST_ROW}: p99`)!;
  assert.equal(target(row(PAYMENTS_LIST_ROW, 400, 40_000)).pass, true);
  assert.equal(target({ ...row(PAYMENTS_LIST_ROW, 400, 40_000), latencyP99Ms: 101 }).pass, false);
  assert.equal(target({ ...row(PAYMENTS_LIST_ROW, 400, 40_000), non2xx: 3 }).note, 'error answers');
});
