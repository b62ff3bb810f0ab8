import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cleanup } from '../../bench/cleanup.ts';
import { BenchUsageError, parseBenchArgs } from '../../bench/options.ts';
import { percentiles, SoakLog, STEPS, type StepFigures } from '../../bench/soak/soak-log.ts';
import { buildSoakReport, formatSoakReport, type SoakResults } from '../../bench/soak/soak-report.ts';
import { WebhookReceiver } from '../../bench/soak/webhook-receiver.ts';
import type { TargetResult } from '../../bench/targets.ts';

test('--soak takes optional seconds; --quick makes it 20 s; the warm-up is the first minute or the first quarter', () => {
  assert.equal(parseBenchArgs([]).soak, null);
  assert.deepEqual(parseBenchArgs(['--soak']).soak, { seconds: 600, warmUpSeconds: 60, rate: 500 });
  assert.deepEqual(parseBenchArgs(['--soak', '--quick']).soak, { seconds: 20, warmUpSeconds: 5, rate: 500 });
  assert.deepEqual(parseBenchArgs(['--quick', '--soak']).soak, { seconds: 20, warmUpSeconds: 5, rate: 500 });
  assert.deepEqual(parseBenchArgs(['--soak', '120', '--db', 'postgres']).soak, { seconds: 120, warmUpSeconds: 30, rate: 150 });
  assert.deepEqual(parseBenchArgs(['--soak=900', '--rate', '50']).soak, { seconds: 900, warmUpSeconds: 60, rate: 50 });
  assert.equal(parseBenchArgs(['--soak', '--db', 'postgres']).db, 'postgres');
});

test('--soak refuses what it cannot use, and --rate needs it', () => {
  for (const argv of [['--soak', 'ten'], ['--soak', '0'], ['--soak', '--rate', '0'], ['--soak', '--only', 'payments-list'], ['--soak', '--duration', '5'], ['--rate', '50'], ['--soak', '10', '20']]) {
    assert.throws(() => parseBenchArgs(argv), BenchUsageError, argv.join(' '));
  }
});

test('percentiles are nearest-rank over the samples', () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.deepEqual(percentiles(samples), { count: 100, p50Ms: 50, p90Ms: 90, p99Ms: 99, maxMs: 100 });
  assert.deepEqual(percentiles([]), { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 });
});

test('the log times only what started in the steady window, and counts every error', () => {
  const log = new SoakLog(5_000, 20_000);
  log.start(1_000);
  log.record('create', 5_999, 500);
  log.record('create', 6_000, 7);
  log.record('create', 20_999, 9);
  log.record('create', 21_000, 900);
  log.fail('pay', 'HTTP 500');
  log.fail('pay', 'HTTP 500');
  log.fail('verify', 'says "pending" after the webhook');
  log.complete(3_000);
  log.complete(10_000);
  const create = log.figures().find((f) => f.step === STEPS.create)!;
  assert.deepEqual([create.count, create.maxMs], [2, 9]);
  assert.equal(log.figures().find((f) => f.step === STEPS.pay)!.errors, 2);
  assert.equal(log.failed, 3);
  assert.deepEqual([log.completed, log.completedInWindow, log.windowSeconds], [2, 1, 15]);
  assert.deepEqual(log.errorExamples(), [`${STEPS.pay}: HTTP 500`, `${STEPS.verify}: says "pending" after the webhook`]);
});

const step = (name: string, p99Ms: number, errors = 0): StepFigures => ({ step: name, count: 1000, p50Ms: 10, p90Ms: 20, p99Ms, maxMs: p99Ms + 10, errors });

const results: SoakResults = {
  payments: { started: 6000, completed: 6000, failed: 0, unfinished: 0, completedInWindow: 4500 },
  windowSeconds: 15,
  steps: Object.values(STEPS).map((name) => step(name, 50)),
  errorExamples: [],
  webhooks: { expected: 6000, received: 6000, lost: 0, duplicated: 0, unexpected: 0 },
  ledger: { clean: true, lines: ['Ledger OK: …'] },
  rss: { endMb: 180, peakMb: 190 },
  generatorMaxLagMs: 3,
  cpu: { gatewayCores: 1.2, generatorCores: 0.6 },
};
const soak = parseBenchArgs(['--soak', '--quick', '--rate', '300']).soak!;
const report = (changed: Partial<SoakResults>, db: 'sqlite' | 'postgres' = 'sqlite') => buildSoakReport({ ...results, ...changed }, db, soak, new Date(0));
const result = (list: TargetResult[], start: string) => list.find((t) => t.target.startsWith(start))!;

test('the achieved rate is payments completed per second of the steady window, held to the issue\'s rate for the database', () => {
  assert.equal(report({}).achievedRate, 300);
  assert.equal(result(report({}).targets, 'payments/s').pass, false, 'SQLite: 500/s');
  assert.equal(result(report({}, 'postgres').targets, 'payments/s').pass, true, 'PostgreSQL: 150/s');
});

test('a slow step or a big gateway misses its target without failing the run', () => {
  const slow = report({ steps: results.steps.map((s) => (s.step === STEPS.poll ? step(s.step, 250) : s)), rss: { endMb: 260, peakMb: 260 } });
  assert.equal(slow.valid, true);
  assert.equal(result(slow.targets, `${STEPS.poll}: p99`).pass, false);
  assert.equal(result(slow.targets, `${STEPS.create}: p99`).pass, true);
  assert.equal(result(slow.targets, 'gateway RSS').pass, false);
});

test('errors, unfinished payments, a lost, duplicated or unexpected webhook, or a ledger problem fail the validity gate', () => {
  assert.equal(report({}).valid, true);
  const webhooks = results.webhooks;
  const invalid: Array<[string, Partial<SoakResults>]> = [
    ['errors', { steps: results.steps.map((s) => (s.step === STEPS.verify ? step(s.step, 50, 1) : s)) }],
    ['unfinished', { payments: { ...results.payments, unfinished: 1 } }],
    ['lost', { webhooks: { ...webhooks, received: 5999, lost: 1 } }],
    ['duplicated', { webhooks: { ...webhooks, duplicated: 1 } }],
    ['unexpected', { webhooks: { ...webhooks, unexpected: 1 } }],
    ['ledger', { ledger: { clean: false, lines: ['Transaction txn_1 does not sum to zero'] } }],
  ];
  for (const [what, changed] of invalid) assert.equal(report(changed).valid, false, what);
});

test('a step with errors fails its p99 target for them, and one never timed fails too', () => {
  const erred = report({ steps: results.steps.map((s) => (s.step === STEPS.pay ? step(s.step, 50, 2) : s.step === STEPS.back ? { ...step(s.step, 0), count: 0 } : s)) });
  assert.deepEqual([result(erred.targets, `${STEPS.pay}: p99`).pass, result(erred.targets, `${STEPS.pay}: p99`).note], [false, 'error answers']);
  assert.deepEqual([result(erred.targets, `${STEPS.back}: p99`).pass, result(erred.targets, `${STEPS.back}: p99`).note], [false, 'nothing timed']);
});

test('the printed report shows the gate apart from the targets, and the ledger\'s problems', () => {
  const text = formatSoakReport(report({ ledger: { clean: false, lines: ['Transaction txn_1 does not sum to zero'] } }));
  assert.match(text, /300 payments\/s offered for 20 s .* after the first 5 s/);
  assert.match(text, /4500 completed in the 15 s steady window: 300\.0\/s/);
  assert.match(text, /Validity gate \(any failure fails the run\): FAIL/);
  assert.match(text, /lipira ledger check problems +≤ 0 +1 +FAIL/);
  assert.match(text, /Ledger check: NOT CLEAN — Transaction txn_1 does not sum to zero/);
  assert.match(text, /Targets \(reported; a miss alone does not fail the run\)/);
  assert.match(text, /CPU over the steady window: gateway 1\.20 cores \(4\.0 ms a payment offered\), load generator 0\.60 cores \(2\.0 ms a payment offered\)/);
});

test('the webhook receiver counts by tx_ref: lost, extra copies, and any for a payment that expected none', async () => {
  const cleanup = new Cleanup();
  const log = new SoakLog(0, 60_000);
  log.start(performance.now());
  const receiver = new WebhookReceiver(log);
  const url = await receiver.listen(cleanup);
  try {
    const send = (body: unknown) => fetch(url, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
    const webhook = (txRef: string, status = 'success') => ({ tx_ref: txRef, status, updated_at: new Date().toISOString() });
    receiver.expect('paid');
    receiver.expect('twice');
    receiver.expect('never');
    const arrived = receiver.arrival('paid', 5_000);
    await send(webhook('paid'));
    assert.equal(await arrived, true);
    await send(webhook('twice'));
    await send(webhook('twice'));
    await send(webhook('stranger'));
    await send(webhook('never', 'failed'));
    await send('not json');
    assert.equal(await receiver.arrival('never', 10), false);
    assert.deepEqual(receiver.counts(), { expected: 3, received: 2, lost: 1, duplicated: 1, unexpected: 3 });
    assert.equal(log.figures().find((f) => f.step === STEPS.webhook)!.count, 2, 'the first copy of each is timed');
  } finally {
    await cleanup.run();
  }
});
