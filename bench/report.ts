import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QUIET_BUSY_SHARE, type Measurement } from './measure.ts';
import type { BenchOptions } from './options.ts';
import { FASTIFY_BASELINE, FLOOR_ROWS, floorOf, NODE_HTTP_BASELINE, VERIFY } from './scenarios.ts';
import { formatTable, type Column } from './table.ts';
import { evaluateTargets, paymentToWebhookTargets, TARGET_COLUMNS, type Growth, type TargetResult } from './targets.ts';
import { describePaymentToWebhook, type PaymentToWebhookResult } from './payment-to-webhook.ts';
import type { WebhookResult } from './webhooks.ts';

export interface Row extends Measurement {
  /** req/s as a fraction of bare node:http's in the same phase (see `measurePhase`): 1.00 means as fast. */
  vsNodeHttp: number;
  vsFastify: number;
  /**
   * Against its floor row (the same route on bare Fastify with the gateway's own query, view and
   * schema; for create, the same rows inserted one transaction per request), each taken against
   * the bare node:http of its own phase: what the gateway's route costs beside the least that
   * route can cost on this stack. Null on the baselines, the floors and rows without a floor.
   */
  vsFloor: number | null;
}

export interface Report {
  date: string;
  node: string;
  db: BenchOptions['db'];
  connections: number;
  durationSeconds: number;
  /** Slices each row's time was cut into, taken in turn with the other rows of its phase. */
  rounds: number;
  /** Sessions stored while the verify rows ran (all but the last three rows, which ran at `growth.largeSessions`). */
  seededSessions: number;
  rows: Row[];
  growth: Growth;
  webhooks: WebhookResult;
  /** The gateway's resident memory once everything above had run. */
  finalServerRssMb: number;
  /** Payments at a constant rate on a gateway of their own, and how soon each webhook arrived. */
  paymentToWebhook: PaymentToWebhookResult;
  targets: TargetResult[];
}

/** What one batch measured, in the order it ran. */
export interface BatchResults {
  measurements: Measurement[];
  /** The verify scenario again at `largeSessions` stored sessions. */
  grown: Measurement;
  /** The dashboard's payments list, filtered by status, at the same size. */
  paymentsList: Measurement;
  /** Its search for a tx_ref fragment, in turns with it. */
  paymentsSearch: Measurement;
  webhooks: WebhookResult;
  finalServerRssMb: number;
  paymentToWebhook: PaymentToWebhookResult;
}

export function buildReport(results: BatchResults, options: BenchOptions, startedAt: Date): Report {
  const { measurements, grown, paymentsList, paymentsSearch, webhooks, finalServerRssMb, paymentToWebhook } = results;
  const nodeHttp = rateOf(measurements, NODE_HTTP_BASELINE);
  const fastify = rateOf(measurements, FASTIFY_BASELINE);
  const vsNodeHttpOf = (m: Measurement) => m.requestsPerSecond / (m.bareRequestsPerSecond ?? nodeHttp);
  const floorVsNodeHttp = (name: string) =>
    rateOf(measurements, name) / (measurements.find((m) => m.scenario === name)!.bareRequestsPerSecond ?? nodeHttp);
  const toRow = (m: Measurement, floor = FLOOR_ROWS.get(m.scenario)): Row => {
    const vsNodeHttp = vsNodeHttpOf(m);
    return {
      ...m,
      vsNodeHttp,
      vsFastify: m.requestsPerSecond / fastify,
      vsFloor: floor === undefined ? null : vsNodeHttp / floorVsNodeHttp(floor),
    };
  };
  // Verify again, at a larger size, in a later phase: still against verify's floor.
  const grownRow = toRow(grown, floorOf(VERIFY));
  const paymentsListRow = toRow(paymentsList);
  const paymentsSearchRow = toRow(paymentsSearch);
  const rows = [...measurements.map((m) => toRow(m)), grownRow, paymentsListRow, paymentsSearchRow];
  const verifyRow = rows.find((row) => row.scenario === VERIFY)!;
  const growth: Growth = {
    smallSessions: options.smallSessions,
    largeSessions: options.largeSessions,
    smallRequestsPerSecond: verifyRow.requestsPerSecond,
    largeRequestsPerSecond: grown.requestsPerSecond,
    rawRatio: grown.requestsPerSecond / verifyRow.requestsPerSecond,
    // The two rows are minutes apart, and in that time this machine's speed changes as much as a
    // million sessions change verify's: each is taken against the bare node:http of its phase.
    ratio: grownRow.vsNodeHttp / verifyRow.vsNodeHttp,
  };
  return {
    date: startedAt.toISOString(),
    node: process.version,
    db: options.db,
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    rounds: options.rounds,
    seededSessions: options.smallSessions,
    rows,
    growth,
    webhooks,
    finalServerRssMb,
    paymentToWebhook,
    targets: [
      ...evaluateTargets({
        db: options.db,
        rows,
        growthRow: grownRow,
        paymentsListRow,
        paymentsSearchRow,
        growth,
        webhooks,
        finalServerRssMb,
      }),
      ...paymentToWebhookTargets(paymentToWebhook),
    ],
  };
}

function rateOf(measurements: Measurement[], name: string): number {
  const rate = measurements.find((m) => m.scenario === name)?.requestsPerSecond;
  if (!rate) throw new Error(`"${name}" served no requests; ratios would be meaningless`);
  return rate;
}

const COLUMNS: Column<Row>[] = [
  ['scenario', (r) => r.scenario, 'left'],
  ['req/s', (r) => r.requestsPerSecond.toFixed(0), 'right'],
  ['p50 ms', (r) => r.latencyP50Ms.toFixed(1), 'right'],
  ['p99 ms', (r) => r.latencyP99Ms.toFixed(1), 'right'],
  ['non-2xx', (r) => String(r.non2xx), 'right'],
  ['errors', (r) => String(r.errors), 'right'],
  ['bare req/s', (r) => (r.bareRequestsPerSecond ?? r.requestsPerSecond).toFixed(0), 'right'],
  ['x node:http', (r) => r.vsNodeHttp.toFixed(2), 'right'],
  ['x fastify', (r) => r.vsFastify.toFixed(2), 'right'],
  ['x floor', (r) => (r.vsFloor === null ? '' : r.vsFloor.toFixed(2)), 'right'],
  ['cpu us/req', (r) => r.serverCpuMicrosPerRequest.toFixed(0), 'right'],
  ['rss MB', (r) => r.serverRssMb.toFixed(1), 'right'],
  // A fast row made of error responses, or one measured while something else kept the machine
  // busy, is not a result: make it impossible to miss.
  [
    'flag',
    (r) =>
      [
        r.non2xx > 0 ? 'NON-2XX' : '',
        r.errors > 0 ? 'ERRORS' : '',
        r.machineBusyBefore > QUIET_BUSY_SHARE ? 'BUSY-MACHINE' : '',
      ]
        .filter(Boolean)
        .join(' '),
    'left',
  ],
];

const count = (n: number) => n.toLocaleString('en-US');

export function formatReport(report: Report): string {
  const { growth, webhooks } = report;
  const rounds = report.rounds > 1 ? ` in ${report.rounds} rounds` : '';
  const title = `Lipira bench: ${report.db}, ${report.connections} connections, ${report.durationSeconds} s per scenario${rounds}, node ${report.node}`;
  const stored = `Stored sessions: ${count(growth.smallSessions)} while the gateway's reads ran, ${count(growth.largeSessions)} for the last three rows`;
  const passed = report.targets.filter((t) => t.pass).length;
  return (
    [
      title,
      stored,
      '',
      ...formatTable(COLUMNS, report.rows),
      ...problemNotes(report.rows),
      '',
      "x floor: against the row's floor (the same route on bare Fastify with the gateway's own query, view and schema; create: its rows inserted one transaction per request), each against bare node:http of its phase",
      `Growth: verify ${growth.smallRequestsPerSecond.toFixed(0)} req/s at ${count(growth.smallSessions)} stored sessions, ` +
        `${growth.largeRequestsPerSecond.toFixed(0)} req/s at ${count(growth.largeSessions)} (${growth.rawRatio.toFixed(2)}); ` +
        `against bare node:http in each one's phase: ratio ${growth.ratio.toFixed(2)}`,
      `Webhooks: ${count(webhooks.events)} queued, ${count(webhooks.events - webhooks.lost)} delivered in ${webhooks.seconds.toFixed(2)} s ` +
        `(${webhooks.deliveriesPerSecond.toFixed(0)}/s), ${webhooks.lost} lost, ${webhooks.duplicated} duplicated` +
        (webhooks.unexpected > 0 ? `, ${webhooks.unexpected} unexpected` : ''),
      `Gateway RSS after the whole run: ${report.finalServerRssMb.toFixed(1)} MB`,
      `${describePaymentToWebhook(report.paymentToWebhook)} (a gateway of its own, the shipped WORKER_INTERVAL)`,
      '',
      `Targets (reads against their floor rows, create against bare node:http, each measured in turns with its row): ${passed} of ${report.targets.length} met`,
      ...formatTable(TARGET_COLUMNS, report.targets),
    ].join('\n') + '\n'
  );
}

/** What went wrong on a flagged row, and not only that something did. */
function problemNotes(rows: Row[]): string[] {
  const notes = rows.flatMap((r) => {
    const statuses = Object.entries(r.statusCodes)
      .map(([status, n]) => `${status} x${n}`)
      .join(', ');
    return [
      ...(r.non2xx > 0 || r.errors > 0
        ? [`! ${r.scenario}: statuses ${statuses || 'none'}; ${r.errors} connection errors (${r.timeouts} timeouts)`]
        : []),
      ...(r.machineBusyBefore > QUIET_BUSY_SHARE
        ? [
            `! ${r.scenario}: the machine was still ${(r.machineBusyBefore * 100).toFixed(0)}% busy when the load started`,
          ]
        : []),
    ];
  });
  return notes.length > 0 ? ['', ...notes] : [];
}

/**
 * Colons are left out of the ISO timestamp so the file name is valid on every file system; a run
 * other than the batch says which it was (`kind`) in its name.
 */
export async function saveReport(
  report: Pick<Report, 'date' | 'db'>,
  resultsDir: string,
  kind?: string,
): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${report.date.replace(/:/g, '-')}${kind ? `-${kind}` : ''}-${report.db}.json`);
  await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  return file;
}
