import { SOAK_TARGET_RATES, type DbKind, type SoakOptions } from '../options.ts';
import { formatTable, type Column } from '../table.ts';
import { check, TARGET_COLUMNS, type TargetResult } from '../targets.ts';
import type { StepFigures } from './soak-log.ts';
import { timelineSpans, type TimelineSecond, type TimelineSpan } from './soak-timeline.ts';
import type { WebhookCounts } from './webhook-receiver.ts';
import type { WindowCpu } from './window-cpu.ts';
import { overloadTargets, type OverloadFigures } from './overload.ts';

/**
 * A rate is held when this share of it completes within the steady window: payments started in
 * its last second or so complete after it, and those started just before it inside (measured: 0.2
 * to 0.5 % short at rates every step of which kept p99s of 10 to 30 ms).
 */
const HELD_SHARE = 0.99;

/** `lipira ledger check` once the load had drained. */
export interface LedgerCheck {
  clean: boolean;
  /** The problems it printed, one a line; the OK line when clean. */
  lines: string[];
}

/** What one soak measured. */
export interface SoakResults {
  payments: {
    started: number;
    completed: number;
    failed: number;
    /** Refused as busy (503) at their create: shed by the gateway, which the merchant would send again later. */
    refused: number;
    /** Still in flight when the drain's limit came: counted as failures by the validity gate. */
    unfinished: number;
    /** Completed (verified after their webhook) within the steady window. */
    completedInWindow: number;
  };
  windowSeconds: number;
  steps: StepFigures[];
  errorExamples: string[];
  webhooks: WebhookCounts;
  ledger: LedgerCheck;
  rss: { endMb: number; peakMb: number };
  /** The latest the generator started a payment after its time. */
  generatorMaxLagMs: number;
  /**
   * Cores kept busy over the steady window by the gateway (all its threads: workers and the
   * database's too) and by the bench process, which share the machine: over what the machine can
   * give, the offered rate cannot be met.
   */
  cpu: WindowCpu;
  /** Statements the gateway sent its database over the steady window, by its own count (`lipira_database_statements_total`). */
  statementsInWindow: number;
  /** Second by second, the whole run: when the figures above changed, and with what. */
  timeline: TimelineSecond[];
  /** Requests answered 503 (busy) over the whole run. */
  busyAnswers: number;
  /**
   * Of those, the ones sent within the steady window: none is expected at a rate the gateway
   * holds. The warm-up may shed new work while the compiler warms the gateway up (slow answers
   * there are left out of the figures too).
   */
  busyAnswersInWindow: number;
  /** `--overload`: how the gateway did at twice its capacity; null for a plain soak. */
  overload: OverloadFigures | null;
}

export interface SoakReport extends SoakResults {
  kind: 'soak';
  date: string;
  node: string;
  db: DbKind;
  offeredRate: number;
  seconds: number;
  warmUpSeconds: number;
  /** Payments completed per second of the steady window. */
  achievedRate: number;
  /** The steady window's statements and CPU, shared out over the payments completed in it. */
  perPayment: PerPayment;
  /** What must hold for the run to count at all: a failure here fails the run. */
  gate: TargetResult[];
  valid: boolean;
  /** The speed and memory targets: reported, not fatal. */
  targets: TargetResult[];
}

export interface PerPayment {
  statements: number;
  gatewayCpuMs: number;
  /** Null on SQLite, or when the server's processes are not on this machine. */
  postgresCpuMs: number | null;
}

/** Issue 33's limits a payment: statements on PostgreSQL, where each is a round trip, and CPU. */
const PER_PAYMENT_LIMITS: Record<
  DbKind,
  { statements: number | null; gatewayCpuMs: number; postgresCpuMs: number | null }
> = {
  sqlite: { statements: null, gatewayCpuMs: 3, postgresCpuMs: null },
  postgres: { statements: 25, gatewayCpuMs: 5, postgresCpuMs: 6 },
};

/** Every request's p99, and the webhook's from the completion it reports. */
const MAX_P99_MS = 200;
const MAX_RSS_MB = 250;

export function buildSoakReport(results: SoakResults, db: DbKind, soak: SoakOptions, startedAt: Date): SoakReport {
  const achievedRate = results.payments.completedInWindow / results.windowSeconds;
  const perPayment = sharedOut(results);
  const errors = results.steps.reduce((sum, step) => sum + step.errors, 0);
  const { webhooks, ledger } = results;
  const gate = [
    check('errors, whole run', '<=', 0, errors, 'count'),
    check('payments unfinished when the drain ended', '<=', 0, results.payments.unfinished, 'count'),
    check('webhooks lost', '<=', 0, webhooks.lost, 'count'),
    check('webhooks duplicated', '<=', 0, webhooks.duplicated, 'count'),
    check('webhooks unexpected', '<=', 0, webhooks.unexpected, 'count'),
    check('lipira ledger check problems', '<=', 0, ledger.clean ? 0 : Math.max(1, ledger.lines.length), 'count'),
    ...(results.overload
      ? []
      : [check('requests refused as busy (503) in the steady window', '<=', 0, results.busyAnswersInWindow, 'count')]),
  ];
  const targets = results.overload
    ? overloadTargets(results.overload)
    : steadyTargets(results, db, soak, achievedRate, perPayment);
  return {
    kind: 'soak',
    date: startedAt.toISOString(),
    node: process.version,
    db,
    offeredRate: soak.rate,
    seconds: soak.seconds,
    warmUpSeconds: soak.warmUpSeconds,
    ...results,
    achievedRate,
    perPayment,
    gate,
    valid: gate.every((result) => result.pass),
    targets,
  };
}

/** A plain soak's targets: the rate held, every step's p99, memory, and the cost of a payment. */
function steadyTargets(
  results: SoakResults,
  db: DbKind,
  soak: SoakOptions,
  achievedRate: number,
  perPayment: PerPayment,
): TargetResult[] {
  return [
    check(
      `payments/s completed in the steady window (${soak.rate}/s offered)`,
      '>=',
      SOAK_TARGET_RATES[db] * HELD_SHARE,
      achievedRate,
      '/s',
    ),
    ...results.steps.map(p99Target),
    check('gateway RSS at the end', '<=', MAX_RSS_MB, results.rss.endMb, 'MB'),
    ...perPaymentTargets(perPayment, db, results.payments.completedInWindow > 0),
  ];
}

function sharedOut({ cpu, statementsInWindow, windowSeconds, payments }: SoakResults): PerPayment {
  const msEach = (cores: number) => (cores * windowSeconds * 1000) / payments.completedInWindow;
  return {
    statements: statementsInWindow / payments.completedInWindow,
    gatewayCpuMs: msEach(cpu.gatewayCores),
    postgresCpuMs: cpu.postgresCores === null ? null : msEach(cpu.postgresCores),
  };
}

function perPaymentTargets(perPayment: PerPayment, db: DbKind, anyCompleted: boolean): TargetResult[] {
  const limits = PER_PAYMENT_LIMITS[db];
  const none = 'no payment completed in the window';
  const targets = [];
  if (limits.statements !== null)
    targets.push(
      check(
        'database statements a payment',
        '<=',
        limits.statements,
        perPayment.statements,
        'statements',
        anyCompleted,
        none,
      ),
    );
  targets.push(
    check("gateway's CPU a payment", '<=', limits.gatewayCpuMs, perPayment.gatewayCpuMs, 'ms', anyCompleted, none),
  );
  if (limits.postgresCpuMs !== null)
    targets.push(
      perPayment.postgresCpuMs === null
        ? check(
            "PostgreSQL's CPU a payment",
            '<=',
            limits.postgresCpuMs,
            0,
            'ms',
            false,
            'its processes not on this machine',
          )
        : check(
            "PostgreSQL's CPU a payment",
            '<=',
            limits.postgresCpuMs,
            perPayment.postgresCpuMs,
            'ms',
            anyCompleted,
            none,
          ),
    );
  return targets;
}

/** A step's p99 counts only if the step answered right every time, and was timed at all. */
function p99Target(step: StepFigures): TargetResult {
  const result = check(`${step.step}: p99`, '<=', MAX_P99_MS, step.p99Ms, 'ms', step.errors === 0);
  return step.count === 0 ? { ...result, pass: false, note: 'nothing timed' } : result;
}

const ms = (value: number) => value.toFixed(1);
const perPayment = (cores: number, rate: number) => `${((cores * 1000) / rate).toFixed(1)} ms a payment offered`;

/** Seconds to a row of the printed timeline (the JSON keeps every second). */
const TIMELINE_SPAN_SECONDS = 10;
const rate = (value: number) => value.toFixed(0);
const share = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(0)}%`);
const TIMELINE_COLUMNS: Column<TimelineSpan>[] = [
  ['s', (t) => `${t.from}-${t.to}`, 'left'],
  ['started/s', (t) => rate(t.startedPerSecond), 'right'],
  ['done/s', (t) => rate(t.completedPerSecond), 'right'],
  ['failed/s', (t) => rate(t.failedPerSecond), 'right'],
  ['refused/s', (t) => rate(t.refusedPerSecond), 'right'],
  ['in flight', (t) => String(t.inFlight), 'right'],
  ['answers/s', (t) => rate(t.answersPerSecond), 'right'],
  ['p99 ms', (t) => rate(t.answerP99Ms), 'right'],
  ['no answer', (t) => String(t.requestErrors), 'right'],
  ['503/s', (t) => rate(t.busyPerSecond), 'right'],
  ['webhooks/s', (t) => rate(t.webhooksPerSecond), 'right'],
  ['webhook p99', (t) => rate(t.webhookP99Ms), 'right'],
  ['gateway cores', (t) => (t.gatewayCores === null ? '-' : t.gatewayCores.toFixed(2)), 'right'],
  ['steal', (t) => share(t.stealShare), 'right'],
  ['iowait', (t) => share(t.iowaitShare), 'right'],
  ['rss MB', (t) => (t.rssMb === null ? '-' : t.rssMb.toFixed(0)), 'right'],
  ['loop lag p99', (t) => (t.metrics === null ? '-' : rate(t.metrics.eventLoopLagP99Ms)), 'right'],
  ['pending webhooks', (t) => (t.metrics === null ? '-' : String(t.metrics.pendingWebhooks)), 'right'],
];

const STEP_COLUMNS: Column<StepFigures>[] = [
  ['step', (s) => s.step, 'left'],
  ['timed', (s) => String(s.count), 'right'],
  ['p50 ms', (s) => ms(s.p50Ms), 'right'],
  ['p90 ms', (s) => ms(s.p90Ms), 'right'],
  ['p99 ms', (s) => ms(s.p99Ms), 'right'],
  ['max ms', (s) => ms(s.maxMs), 'right'],
  ['errors', (s) => String(s.errors), 'right'],
];

export function formatSoakReport(report: SoakReport): string {
  const { payments, webhooks, ledger } = report;
  const met = report.targets.filter((t) => t.pass).length;
  return (
    [
      `Lipira soak: ${report.db}, ${report.offeredRate} payments/s offered for ${report.seconds} s (constant arrivals), ` +
        `figures over the steady window after the first ${report.warmUpSeconds} s, node ${report.node}`,
      `Payments: ${payments.started} started, ${payments.completed} completed, ${payments.failed} failed, ` +
        `${payments.refused} refused as busy, ${payments.unfinished} unfinished; ` +
        `${payments.completedInWindow} completed in the ${report.windowSeconds.toFixed(0)} s steady window: ${report.achievedRate.toFixed(1)}/s`,
      '',
      'Latency of requests started in the steady window (the webhook: from the completion it reports to its arrival); errors over the whole run',
      ...formatTable(STEP_COLUMNS, report.steps),
      ...(report.errorExamples.length > 0 ? ['', ...report.errorExamples.map((example) => `! ${example}`)] : []),
      '',
      `Webhooks: ${webhooks.expected} expected, ${webhooks.received} received, ${webhooks.lost} lost (not received when the drain ended), ` +
        `${webhooks.duplicated} duplicated, ${webhooks.unexpected} unexpected`,
      ledger.clean ? 'Ledger check: clean' : `Ledger check: NOT CLEAN — ${ledger.lines.slice(0, 5).join(' | ')}`,
      `Gateway RSS: ${report.rss.endMb.toFixed(1)} MB at the end, ${report.rss.peakMb.toFixed(1)} MB at most`,
      `CPU over the steady window: gateway ${report.cpu.gatewayCores.toFixed(2)} cores (${perPayment(report.cpu.gatewayCores, report.offeredRate)}), ` +
        `load generator ${report.cpu.generatorCores.toFixed(2)} cores (${perPayment(report.cpu.generatorCores, report.offeredRate)})` +
        (report.cpu.postgresCores === null
          ? ''
          : `, PostgreSQL ${report.cpu.postgresCores.toFixed(2)} cores (${perPayment(report.cpu.postgresCores, report.offeredRate)})`) +
        `; load average ${report.cpu.loadAverage.map((load) => load.toFixed(2)).join(' ')}`,
      `A payment completed in the steady window: ${report.perPayment.statements.toFixed(1)} statements to the database, ` +
        `${ms(report.perPayment.gatewayCpuMs)} ms of the gateway's CPU` +
        (report.perPayment.postgresCpuMs === null ? '' : `, ${ms(report.perPayment.postgresCpuMs)} ms of PostgreSQL's`),
      `Load generator: payments started at most ${report.generatorMaxLagMs.toFixed(1)} ms after their time`,
      '',
      ...(report.overload ? ['', ...formatOverload(report.overload)] : []),
      '',
      `Timeline, ${TIMELINE_SPAN_SECONDS} s a row, warm-up and drain included (p99s: the worst second's; loop lag and pending webhooks: the gateway's /metrics, every 10 s)`,
      ...formatTable(TIMELINE_COLUMNS, timelineSpans(report.timeline, TIMELINE_SPAN_SECONDS)),
      '',
      `Validity gate (any failure fails the run): ${report.valid ? 'PASS' : 'FAIL'}`,
      ...formatTable(TARGET_COLUMNS, report.gate),
      '',
      `Targets (reported; a miss alone does not fail the run): ${met} of ${report.targets.length} met`,
      ...formatTable(TARGET_COLUMNS, report.targets),
    ].join('\n') + '\n'
  );
}

function formatOverload(figures: OverloadFigures): string[] {
  const recovered =
    figures.recoverySeconds === null ? 'never within the run' : `${figures.recoverySeconds} s after it ended`;
  return [
    `Overload: ${figures.capacity}/s offered until ${figures.overloadFrom} s, ${2 * figures.capacity}/s until ${figures.overloadTo} s, then ${figures.capacity}/s`,
    `  completed within ${figures.inTimeSeconds} s, of the payments started in the overload: ${figures.goodputPerSecond.toFixed(1)}/s (capacity ${figures.capacity}/s)`,
    `  refused as busy: ${figures.refusedPayments} payments at their create; ${figures.busyAnswers} answers 503 in all, p99 ${ms(figures.busyP99Ms)} ms, max ${ms(figures.busyMaxMs)} ms`,
    `  accepted answers: slowest ${ms(figures.acceptedMaxMs)} ms, ${figures.acceptedOverLimit} over 2 s; every second's p99 within 200 ms again ${recovered}`,
  ];
}
