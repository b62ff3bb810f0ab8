import { parseArgs } from 'node:util';

export type DbKind = 'sqlite' | 'postgres';

export interface BenchOptions {
  quick: boolean;
  /** Only this row, on a gateway seeded for it alone (`--only payments-list` or `payment-to-webhook`); null for the whole batch. */
  only: (typeof ONLY_ROWS)[number] | null;
  db: DbKind;
  durationSeconds: number;
  /** An unrecorded run of each gateway read scenario first: no row should pay for the JIT compiler's warm-up. */
  warmUpSeconds: number;
  /** Each phase's rows are measured in this many slices taken in turn (see `measureInRounds`). */
  rounds: number;
  /** Sessions and direct charges created over HTTP, as merchants would: the page and charge scenarios use these. */
  seedCount: number;
  connections: number;
  /** Sessions stored when the verify scenarios run: the growth target's reference point. */
  smallSessions: number;
  /** Sessions stored for the growth row, bulk-loaded: 1,000,000 takes too long for a quick run. */
  largeSessions: number;
  /** Events queued at once to measure webhook delivery. */
  webhookEvents: number;
}

const ONLY_ROWS = ['payments-list', 'payment-to-webhook'] as const;

export const USAGE = `usage: npm run bench -- [--quick] [--db sqlite|postgres] [--duration SECONDS] [--only ${ONLY_ROWS.join('|')}]`;

/** A bad command line: reported on one line with exit status 2. */
export class BenchUsageError extends Error {}

export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values } = parseFlags(argv);
  const quick = values.quick ?? false;
  return {
    quick,
    only: parseOnly(values.only),
    db: parseDb(values.db ?? 'sqlite'),
    durationSeconds: values.duration === undefined ? (quick ? 3 : 10) : parseDuration(values.duration),
    warmUpSeconds: quick ? 0.5 : 2,
    rounds: quick ? 1 : 5,
    seedCount: quick ? 500 : 2000,
    connections: 50,
    smallSessions: 10_000,
    largeSessions: quick ? 200_000 : 1_000_000,
    webhookEvents: quick ? 2_000 : 10_000,
  };
}

function parseFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { quick: { type: 'boolean' }, db: { type: 'string' }, duration: { type: 'string' }, only: { type: 'string' } },
    });
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseDb(raw: string): DbKind {
  if (raw === 'sqlite' || raw === 'postgres') return raw;
  throw new BenchUsageError(`--db must be sqlite or postgres (got "${raw}")`);
}

function parseOnly(raw: string | undefined): BenchOptions['only'] {
  if (raw === undefined) return null;
  const row = ONLY_ROWS.find((name) => name === raw);
  if (row) return row;
  throw new BenchUsageError(`--only takes ${ONLY_ROWS.join(' or ')} (got "${raw}")`);
}

function parseDuration(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new BenchUsageError(`--duration must be a whole number of seconds, at least 1 (got "${raw}")`);
  return Number(raw);
}
