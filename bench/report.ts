import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchOptions } from './options.ts';
import { FASTIFY_BASELINE, NODE_HTTP_BASELINE, type Measurement } from './scenarios.ts';

export interface Row extends Measurement {
  /** req/s as a fraction of the baseline's: 1.00 means as fast as bare node:http. */
  vsNodeHttp: number;
  vsFastify: number;
}

export interface Report {
  date: string;
  node: string;
  db: BenchOptions['db'];
  connections: number;
  durationSeconds: number;
  seededSessions: number;
  rows: Row[];
}

export function buildReport(measurements: Measurement[], options: BenchOptions, startedAt: Date): Report {
  const nodeHttp = baselineRate(measurements, NODE_HTTP_BASELINE);
  const fastify = baselineRate(measurements, FASTIFY_BASELINE);
  return {
    date: startedAt.toISOString(),
    node: process.version,
    db: options.db,
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    seededSessions: options.seedCount,
    rows: measurements.map((m) => ({ ...m, vsNodeHttp: m.requestsPerSecond / nodeHttp, vsFastify: m.requestsPerSecond / fastify })),
  };
}

function baselineRate(measurements: Measurement[], name: string): number {
  const rate = measurements.find((m) => m.scenario === name)?.requestsPerSecond;
  if (!rate) throw new Error(`baseline "${name}" served no requests; ratios would be meaningless`);
  return rate;
}

type Column = [header: string, cell: (row: Row) => string, align: 'left' | 'right'];

const COLUMNS: Column[] = [
  ['scenario', (r) => r.scenario, 'left'],
  ['req/s', (r) => r.requestsPerSecond.toFixed(0), 'right'],
  ['p50 ms', (r) => r.latencyP50Ms.toFixed(1), 'right'],
  ['p99 ms', (r) => r.latencyP99Ms.toFixed(1), 'right'],
  ['non-2xx', (r) => String(r.non2xx), 'right'],
  ['errors', (r) => String(r.errors), 'right'],
  ['x node:http', (r) => r.vsNodeHttp.toFixed(2), 'right'],
  ['x fastify', (r) => r.vsFastify.toFixed(2), 'right'],
  ['cpu us/req', (r) => r.serverCpuMicrosPerRequest.toFixed(0), 'right'],
  ['rss MB', (r) => r.serverRssMb.toFixed(1), 'right'],
  // A fast row made of error responses is not a result: make it impossible to miss.
  ['flag', (r) => [r.non2xx > 0 ? 'NON-2XX' : '', r.errors > 0 ? 'ERRORS' : ''].filter(Boolean).join(' '), 'left'],
];

export function formatReport(report: Report): string {
  const cells = [COLUMNS.map(([header]) => header), ...report.rows.map((row) => COLUMNS.map(([, cell]) => cell(row)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  const lines = cells.map((line) =>
    line
      .map((text, i) => (COLUMNS[i]![2] === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const title = `Lipira bench: ${report.db}, ${report.connections} connections, ${report.durationSeconds} s per scenario, node ${report.node}`;
  return [title, '', ...lines, ...problemNotes(report.rows)].join('\n') + '\n';
}

/** Which statuses a flagged row got, so the table says what went wrong and not only that something did. */
function problemNotes(rows: Row[]): string[] {
  const flagged = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  if (flagged.length === 0) return [];
  return [
    '',
    ...flagged.map((r) => {
      const statuses = Object.entries(r.statusCodes).map(([status, count]) => `${status} x${count}`).join(', ');
      return `! ${r.scenario}: statuses ${statuses || 'none'}; ${r.errors} connection errors (${r.timeouts} timeouts)`;
    }),
  ];
}

/** Colons are left out of the ISO timestamp so the file name is valid on every file system. */
export async function saveReport(report: Report, resultsDir: string): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${report.date.replace(/:/g, '-')}-${report.db}.json`);
  await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  return file;
}
